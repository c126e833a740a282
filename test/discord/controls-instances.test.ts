import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type Json, type MessageRecord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { startInstance, type Instance } from './harness.ts';

/** An instance with its gateway session on the fake. */
type SessionInstance = Instance & { sessionId: string };

function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}

const redisUp = await reachable(redisUrl);

// Two processes of one bot on one shard (a rolling deploy): Discord sends both every event, and a press may reach
// the one that is not writing the answer. A lagging gateway session decides which one hears an event first.
describe.skipIf(!redisUp)(`discord: a press on the other of two instances sharing Redis at ${redisUrl}`, () => {
  let emu: Emulator;
  let fake: FakeDiscord;
  let writer: SessionInstance;
  let other: SessionInstance;

  async function startOnRedis(): Promise<SessionInstance> {
    const sessions = fake.gatewayConnections.length;
    const instance = await startInstance({ fake, emu, env: { STORE_URL: redisUrl } });
    return Object.assign(instance, { sessionId: fake.gatewayConnections[sessions]!.sessionId! });
  }

  beforeAll(async () => {
    emu = await startEmulator();
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    writer = await startOnRedis();
    other = await startOnRedis();
  });

  afterAll(async () => {
    for (const { bot, core } of [writer, other]) {
      await bot.stop();
      await core.close();
    }
    await fake.close();
    await emu.close();
  });

  /** `event` happens while only `instance` hears it at once; the other hears it late (and finds it taken). */
  async function heardFirstBy<T>(instance: SessionInstance, event: () => Promise<T>): Promise<T> {
    const release = fake.lagGatewaySession(instance === writer ? other.sessionId : writer.sessionId);
    try {
      return await event();
    } finally {
      release();
    }
  }

  async function press(messageId: string, button: string): Promise<void> {
    const record = fake.pressButton({ messageId, button });
    await fake.waitFor(() => record.responseType !== null, { description: `${button} acknowledged` });
  }

  it('Stop and Regenerate reach the answer through the store', async () => {
    const channel = fake.addChannel({ name: 'two-instances' });
    const bot = () => fake.messages(channel.id).filter((m) => m.authorId === fake.botUser.id);
    emu.pace.tokensPerSecond = 40;
    const written = writer.finished;
    const streaming = await heardFirstBy(writer, async () => {
      fake.sendMessage({ channelId: channel.id, content: `<@${fake.botUser.id}> long 300` });
      return fake.waitFor(() => bot().find((m) => buttons(m).includes('Stop') && m.content.split(' ').length > 5));
    });
    const request = emu.requests.at(-1)!;

    await heardFirstBy(other, () => press(streaming.id, 'Stop'));
    await fake.waitFor(() => writer.finished === written + 1, { description: 'the writer stopped' });
    emu.pace.tokensPerSecond = 0;
    await fake.waitFor(() => request.closed);
    expect(request.closed!.byClient).toBe(true);
    const [stopped] = bot();
    expect(stopped!.content.split(/\s+/).length).toBeLessThan(300);
    expect(buttons(stopped)).toEqual(['Regenerate']);

    const regenerated = other.finished;
    await heardFirstBy(other, () => press(stopped!.id, 'Regenerate'));
    await fake.waitFor(() => other.finished === regenerated + 1, { description: 'the other instance answered again' });
    const [again] = bot();
    expect(bot()).toHaveLength(1);
    expect(again!.content.split(/\s+/)).toHaveLength(300);
    expect(buttons(again)).toEqual(['◀', '2/2', '▶', 'Regenerate']);
    expect(writer.finished).toBe(written + 1);
  });
});
