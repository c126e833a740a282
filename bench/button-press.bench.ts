import { Client, Events, GatewayIntentBits, Routes } from 'discord.js';
import { type DiscordWorldSetup, startDiscordHerald } from './discord-herald.ts';
import { percentile } from './stats.ts';
import { startWorldThread } from './world-thread.ts';

const FLIPS = 60;
const REGENERATIONS = 15;
const REFERENCE_PRESSES = 60;
const STOPS = 10;
const STREAM_TOKENS_PER_SECOND = 40;
// Presses spaced so the bot stays under Discord's global 50 requests per second, whose waits are not Herald's.
const PRESS_GAP_MS = 60;
// A Regenerate follows an answer's dozen requests (post, edits, buttons): it waits one global window after them.
const GLOBAL_WINDOW_MS = 1000;
const POLL_MS = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Timing {
  pressedAt: number;
  acknowledgedAt?: number;
  editedAt?: number;
}

interface BotMessage {
  id: string;
  content: string;
  buttons: string[];
}

function summary(values: number[]): string {
  return `p50 ${percentile(values, 50)} ms · p90 ${percentile(values, 90)} ms · max ${Math.max(...values)} ms`;
}

export async function run(): Promise<{ markdown: string }> {
  const world = await startWorldThread(new URL('./button-press-world.ts', import.meta.url));
  const setup = await world.call<DiscordWorldSetup>('setup');
  const herald = await startDiscordHerald(setup);
  // The reference: a bare discord.js client on the same fake that acknowledges its own button and edits its message.
  const reference = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: setup.restUrl } });
  reference.on(Events.InteractionCreate, async (interaction) => {
    if (!interaction.isButton() || interaction.customId !== 'reference') return;
    await interaction.deferUpdate();
    await reference.rest.patch(Routes.channelMessage(interaction.channelId, interaction.message.id), {
      body: { content: `pressed at ${Date.now()}` },
    });
  });
  const ready = new Promise<void>((resolve) => reference.once(Events.ClientReady, () => resolve()));
  await reference.login(setup.token);
  await ready;

  const until = async <T>(read: () => Promise<T | undefined>): Promise<T> => {
    for (;;) {
      const value = await read();
      if (value !== undefined) return value;
      await sleep(POLL_MS);
    }
  };
  const { finished } = herald;
  /** Presses, waits until the press was acknowledged and the message edited, returns both delays. */
  const measure = async (messageId: string, button: string, buttons = false): Promise<{ ack: number; edit: number }> => {
    const interactionId = await world.call<string>('press', { messageId, button });
    const timing = await until(async () => {
      const t = await world.call<Timing>('timing', { interactionId, messageId, buttons });
      return t.acknowledgedAt !== undefined && t.editedAt !== undefined ? t : undefined;
    });
    return { ack: timing.acknowledgedAt! - timing.pressedAt, edit: timing.editedAt! - timing.pressedAt };
  };
  const botMessages = (channelId: string) => world.call<BotMessage[]>('botMessages', { channelId });
  let asked = 0;
  const ask = async (channelId: string, content: string): Promise<BotMessage> => {
    await world.call('send', { channelId, content: `<@${setup.botId}> ${content}` });
    await finished(++asked);
    return (await botMessages(channelId)).at(-1)!;
  };

  try {
    const referenceChannel = await world.call<string>('channel', { name: 'reference' });
    const referenceMessage = (await reference.rest.post(Routes.channelMessages(referenceChannel), {
      body: { content: 'reference', components: [{ type: 1, components: [{ type: 2, style: 2, custom_id: 'reference', label: 'Reference' }] }] },
    })) as { id: string };
    const referenceTimes: { ack: number; edit: number }[] = [];
    for (let i = 0; i < REFERENCE_PRESSES; i++) {
      referenceTimes.push(await measure(referenceMessage.id, 'Reference'));
      await sleep(PRESS_GAP_MS);
    }

    const flipChannel = await world.call<string>('channel', { name: 'flips' });
    const first = await ask(flipChannel, 'roll 1000000');
    await world.call('press', { messageId: first.id, button: 'Regenerate' });
    await finished(++asked);
    const answer = (await botMessages(flipChannel)).at(-1)!;
    const flips: { ack: number; edit: number }[] = [];
    for (let i = 0; i < FLIPS; i++) {
      flips.push(await measure(answer.id, i % 2 === 0 ? '◀' : '▶'));
      await sleep(PRESS_GAP_MS);
    }

    const regenerations: { ack: number; edit: number }[] = [];
    for (let i = 0; i < REGENERATIONS; i++) {
      const channelId = await world.call<string>('channel', { name: `regenerate-${i}` });
      const shown = await ask(channelId, `roll ${1000 + i}`);
      await sleep(GLOBAL_WINDOW_MS);
      regenerations.push(await measure(shown.id, 'Regenerate'));
      await finished(++asked);
      await sleep(PRESS_GAP_MS);
    }

    const stops: { ack: number; edit: number }[] = [];
    await world.call('pace', { tokensPerSecond: STREAM_TOKENS_PER_SECOND });
    for (let i = 0; i < STOPS; i++) {
      const channelId = await world.call<string>('channel', { name: `stop-${i}` });
      await world.call('send', { channelId, content: `<@${setup.botId}> long 400` });
      const streaming = await until(async () => (await botMessages(channelId)).find((m) => m.buttons.includes('Stop')));
      stops.push(await measure(streaming.id, 'Stop', true));
      await finished(++asked);
      await sleep(PRESS_GAP_MS);
    }
    await world.call('pace', { tokensPerSecond: 0 });

    const median = (rows: { edit: number }[]) =>
      percentile(
        rows.map((r) => r.edit),
        50,
      );
    const lines = [
      '## Discord: button press → first visible change',
      '',
      'The real core and discord.js client in the main thread, the service emulator and the fake Discord in a worker',
      'thread. A user presses a button on an answer; measured from the moment the fake dispatches the press to the',
      'moment it receives the acknowledgement (a deferred update) and the first edit of the pressed message. ◀ ▶',
      'rewrite the answer to the other version; Regenerate first takes the old buttons off; Stop ends the streamed message,',
      'measured to the edit that changes its buttons (edits of the streaming text do not count). The reference is a bare',
      'discord.js client in the same process that acknowledges its own button and edits its message, nothing else:',
      "the platform's and the library's share. Edit buckets are wide and presses spaced (a Regenerate a second after",
      "the answer it regenerates), so no press waits for Discord's rate limits.",
      'Goal: Herald ≤ 150 ms more than the reference.',
      '',
      '| press | → acknowledged | → message edited |',
      '|---|---|---|',
      `| reference (${REFERENCE_PRESSES}) | ${summary(referenceTimes.map((r) => r.ack))} | ${summary(referenceTimes.map((r) => r.edit))} |`,
      `| ◀ ▶ (${FLIPS}) | ${summary(flips.map((r) => r.ack))} | ${summary(flips.map((r) => r.edit))} |`,
      `| Regenerate (${REGENERATIONS}) | ${summary(regenerations.map((r) => r.ack))} | ${summary(regenerations.map((r) => r.edit))} |`,
      `| Stop while streaming at ${STREAM_TOKENS_PER_SECOND} tokens/s (${STOPS}) | ${summary(stops.map((r) => r.ack))} | ${summary(stops.map((r) => r.edit))} |`,
      '',
      `Herald's own time to the edit, median over the reference's: ◀ ▶ ${median(flips) - median(referenceTimes)} ms, ` +
        `Regenerate ${median(regenerations) - median(referenceTimes)} ms, Stop ${median(stops) - median(referenceTimes)} ms.`,
    ];
    return { markdown: lines.join('\n') };
  } finally {
    await reference.destroy();
    await herald.stop();
    await world.stop();
  }
}
