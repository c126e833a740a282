import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../src/service/types.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';
import { nextForget } from '../helpers/next-forget.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, emulator: { pace: { tokensPerSecond: 0, ttsChunkIntervalMs: 0 } } });
});

afterAll(async () => {
  await h.close();
});

afterEach(() => {
  vi.useRealTimers();
});

/** Asks in the DM and waits for the whole answer. */
async function ask(content: string): Promise<string> {
  const before = h.finished;
  const question = h.fake.sendMessage({ channelId: h.fake.dmChannel.id, content });
  await h.repliesFinished(before + 1);
  return String(question.id);
}

it('a question deleted after its answer is forgotten: the next request in the conversation no longer carries it', { timeout: 20_000 }, async () => {
  const secret = await ask('my locker code is 4711');
  await ask('the weather is fine today');
  const forgotten = nextForget(h.core.engine);
  h.fake.deleteUserMessage({ channelId: h.fake.dmChannel.id, messageId: secret });
  await forgotten;

  await ask('recall');
  const answer = h.botMessages(h.fake.dmChannel.id).at(-1)!;
  expect(answer.content).toBe('You first said: the weather is fine today');
  const request = h.emu.requests.filter((r) => r.endpoint === 'chat').at(-1)!;
  const sent = (request.body as { messages: ChatMessage[] }).messages.map((m) => JSON.stringify(m.content)).join('\n');
  expect(sent).not.toContain('4711');
  expect(sent).toContain('the weather is fine today');
});

it('a question deleted long after its answer, past the edit window, is forgotten too', { timeout: 20_000 }, async () => {
  const dm = h.fake.dmChannel.id;
  const secret = await ask('my door code is 9182');
  // Only the clock moves: twelve minutes pass between the answer and the deletion.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 12 * 60_000 });
  const forgotten = nextForget(h.core.engine);
  h.fake.deleteUserMessage({ channelId: dm, messageId: secret });
  await forgotten;
  await ask('what did I tell you so far?');
  const request = h.emu.requests.filter((r) => r.endpoint === 'chat').at(-1)!;
  const sent = (request.body as { messages: ChatMessage[] }).messages.map((m) => JSON.stringify(m.content)).join('\n');
  expect(sent).not.toContain('9182');
  expect(sent).toContain('what did I tell you so far?');
});
