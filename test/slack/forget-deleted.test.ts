import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/service/types.ts';
import { startFakeSlack, type FakeSlack } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;

beforeEach(async () => {
  fake = await startFakeSlack();
  emu = await startEmulator();
  herald = await startHerald(fake, emu, { mode: 'http' });
});

afterEach(async () => {
  await herald.stop();
  await fake.close();
  await emu.close();
});

const finishedAnswers = () => fake.botMessages().filter((m) => m.stream?.state === 'stopped');

/** Resolves once the core has forgotten what a deleted message brought into memory. */
function nextForget(): Promise<void> {
  const engine = herald.core.engine;
  const forget = engine.forget.bind(engine);
  return new Promise((resolve) => {
    engine.forget = async (key, messageId) => {
      const forgotten = await forget(key, messageId);
      engine.forget = forget;
      resolve();
      return forgotten;
    };
  });
}

it('a question deleted after its answer is forgotten: the next request in the thread no longer carries it', { timeout: 20_000 }, async () => {
  const secret = fake.events.appMention({ text: 'my locker code is 4711' });
  const thread = String(secret.ts);
  await fake.deliverEvent(secret);
  await fake.waitFor(() => finishedAnswers()[0]);
  await fake.deliverEvent(fake.events.threadReply({ text: 'the weather is fine today', channel: fake.channelId, thread_ts: thread }));
  await fake.waitFor(() => finishedAnswers()[1]);

  // The thread's first message: Slack leaves a tombstone and says so with message_changed.
  const forgotten = nextForget();
  await fake.deliverEvent(fake.events.messageDeleted({ channel: fake.channelId, ts: thread }));
  await forgotten;

  await fake.deliverEvent(fake.events.threadReply({ text: 'recall', channel: fake.channelId, thread_ts: thread }));
  const recall = await fake.waitFor(() => finishedAnswers()[2]);
  expect(recall.text).toBe('You first said: [alice]: the weather is fine today');
  const sent = (emu.requests.at(-1)!.body as { messages: ChatMessage[] }).messages.map((m) => JSON.stringify(m.content)).join('\n');
  expect(sent).not.toContain('4711');
});
