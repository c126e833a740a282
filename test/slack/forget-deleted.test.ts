import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../src/service/types.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';
import { nextForget } from '../helpers/next-forget.ts';

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;

beforeEach(async () => {
  ({ fake, emu, herald } = await startSlackWorld());
});

afterEach(async () => {
  vi.useRealTimers();
  await stopSlackWorld({ fake, emu, herald });
});

const finishedAnswers = () => fake.botMessages().filter((m) => m.stream?.state === 'stopped');

it('a question deleted after its answer is forgotten: the next request in the thread no longer carries it', { timeout: 20_000 }, async () => {
  const secret = fake.events.appMention({ text: 'my locker code is 4711' });
  const thread = String(secret.ts);
  await fake.deliverEvent(secret);
  await fake.waitFor(() => finishedAnswers()[0]);
  await fake.deliverEvent(fake.events.threadReply({ text: 'the weather is fine today', channel: fake.channelId, thread_ts: thread }));
  await fake.waitFor(() => finishedAnswers()[1]);

  // The thread's first message: Slack leaves a tombstone and says so with message_changed.
  const forgotten = nextForget(herald.core.engine);
  await fake.deliverEvent(fake.events.messageDeleted({ channel: fake.channelId, ts: thread }));
  await forgotten;

  await fake.deliverEvent(fake.events.threadReply({ text: 'recall', channel: fake.channelId, thread_ts: thread }));
  const recall = await fake.waitFor(() => finishedAnswers()[2]);
  expect(recall.text).toBe('You first said: [alice]: the weather is fine today');
  const sent = (emu.requests.at(-1)!.body as { messages: ChatMessage[] }).messages.map((m) => JSON.stringify(m.content)).join('\n');
  expect(sent).not.toContain('4711');
});

it('a direct message deleted long after its answer, past the edit window, is forgotten too', { timeout: 20_000 }, async () => {
  const dmAnswers = () => fake.botMessages(fake.dmChannelId);
  const secret = fake.events.directMessage({ text: 'my door code is 9182' });
  await fake.deliverEvent(secret);
  await fake.waitFor(() => dmAnswers().find((m) => m.text === 'Echo: my door code is 9182'));
  // Only the clock moves: twelve minutes pass between the answer and the deletion.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 12 * 60_000 });
  const forgotten = nextForget(herald.core.engine);
  await fake.deliverEvent(fake.events.messageDeleted({ channel: fake.dmChannelId, ts: String(secret.ts) }));
  await forgotten;

  await fake.deliverEvent(fake.events.directMessage({ text: 'recall' }));
  const recall = await fake.waitFor(() => dmAnswers().find((m) => m.text.startsWith('You first said')));
  expect(recall.text).toBe('You first said: recall');
  const sent = (emu.requests.at(-1)!.body as { messages: ChatMessage[] }).messages.map((m) => JSON.stringify(m.content)).join('\n');
  expect(sent).not.toContain('9182');
});
