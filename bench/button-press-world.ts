import { startFakeDiscord, type Json } from '../test/fakes/discord/index.ts';
import { startEmulator } from '../test/fakes/service/emulator.ts';
import { serveWorld } from './world-thread.ts';

/**
 * The world around Herald for bench/button-press.bench.ts, in a worker thread of its own (Discord and the service are
 * other machines): the service emulator and the fake Discord, whose edit buckets are wide enough that no press waits
 * for one (that wait is Discord's, not Herald's). The bench drives it by messages.
 */

const emu = await startEmulator();
const fake = await startFakeDiscord({ heartbeatIntervalMs: 5000, rateLimits: { messageEdit: { limit: 10_000, windowMs: 5000 } } });

function labels(message: { components: Json[] }): string[] {
  return message.components.flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}

const operations: Record<string, (args: any) => unknown> = {
  setup: () => ({ token: fake.token, restUrl: fake.restUrl, apiUrl: emu.url, apiKey: emu.apiKey, botId: fake.botUser.id }),
  channel: ({ name }: { name: string }) => fake.addChannel({ name }).id,
  send: ({ channelId, content }: { channelId: string; content: string }) => void fake.sendMessage({ channelId, content }),
  pace: ({ tokensPerSecond }: { tokensPerSecond: number }) => void (emu.pace.tokensPerSecond = tokensPerSecond),
  /** The bot's messages in a channel with their buttons' labels, oldest first. */
  botMessages: ({ channelId }: { channelId: string }) =>
    fake
      .messages(channelId)
      .filter((m) => m.authorId === fake.botUser.id)
      .map((m) => ({ id: m.id, content: m.content, buttons: labels(m) })),
  press: ({ messageId, button }: { messageId: string; button: string }) => fake.pressButton({ messageId, button }).id,
  /**
   * When the press was dispatched, acknowledged, and when the first edit of `messageId` after it reached the fake
   * (with `buttons`, the first that changed its buttons); undefined until they happened.
   */
  timing: ({ interactionId, messageId, buttons }: { interactionId: string; messageId: string; buttons?: boolean }) => {
    const interaction = fake.interaction(interactionId)!;
    const edit = fake.requests.find(
      (r) =>
        r.method === 'PATCH' &&
        r.params.message_id === messageId &&
        r.timestamp >= interaction.createdAt &&
        r.status < 300 &&
        (!buttons || (r.body as { components?: unknown }).components !== undefined),
    );
    return { pressedAt: interaction.createdAt, acknowledgedAt: interaction.respondedAt ?? undefined, editedAt: edit?.timestamp };
  },
  close: async () => {
    await fake.close();
    await emu.close();
  },
};

serveWorld(operations);
