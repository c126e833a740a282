import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/service/types.ts';
import type { RecordedRequest } from '../fakes/service/state.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, emulator: { pace: { tokensPerSecond: 0, ttsChunkIntervalMs: 0 } } });
});

beforeEach(() => {
  h.emu.pace.tokensPerSecond = 0;
});

afterAll(async () => {
  await h.close();
});

function chatRequests(): RecordedRequest[] {
  return h.emu.requests.filter((r) => r.endpoint === 'chat');
}

/** The conversation a service request carried, without the system prompt. */
function conversation(request: RecordedRequest): string[] {
  return (request.body as { messages: ChatMessage[] }).messages.filter((m) => m.role !== 'system').map((m) => String(m.content));
}

/** Asks in a channel of its own (a DM when `direct`) and waits for the whole answer. */
async function ask(content: string, options: { channelId?: string; direct?: boolean } = {}) {
  const channelId = options.channelId ?? (options.direct ? h.fake.dmChannel.id : h.fake.addChannel({ name: `edits-${h.finished}` }).id);
  const before = h.finished;
  const question = h.fake.sendMessage({ channelId, content: options.direct ? content : `${h.mention} ${content}` });
  await h.repliesFinished(before + 1);
  return { channelId, questionId: String(question.id) };
}

/** Herald's messages in a channel: id, text, and the message each replies to. */
function answers(channelId: string) {
  return h.botMessages(channelId).map((m) => ({ id: m.id, content: m.content, replyTo: m.reference?.messageId }));
}

function deletesIn(channelId: string) {
  return h.fake.requests.filter((r) => r.method === 'DELETE' && r.params.channel_id === channelId);
}

it('an edit right after the answer replaces it: the old answer goes, the edited question is answered, and the conversation goes on from it', {
  timeout: 20_000,
}, async () => {
  const { channelId, questionId } = await ask('what is the captial of France?');
  const [old] = answers(channelId);
  expect(old).toMatchObject({ content: 'Echo: [Alice]: what is the captial of France?', replyTo: questionId });

  const before = h.finished;
  h.fake.editUserMessage({ channelId, messageId: questionId, content: `${h.mention} what is the capital of France?` });
  await h.repliesFinished(before + 1);
  const [now, ...more] = answers(channelId);
  expect(more).toEqual([]);
  expect(now).toMatchObject({ content: 'Echo: [Alice]: what is the capital of France?', replyTo: questionId });
  expect(h.fake.message(old!.id)!.deleted).toBe(true);

  const next = h.finished;
  h.fake.sendMessage({ channelId, content: `${h.mention} and of Germany?`, messageReference: { messageId: now!.id } });
  await h.repliesFinished(next + 1);
  expect(conversation(chatRequests().at(-1)!)).toEqual([
    '[Alice]: what is the capital of France?',
    'Echo: [Alice]: what is the capital of France?',
    '[Alice]: and of Germany?',
  ]);
});

it('an edit while the answer streams cancels it (its service request is aborted) and leaves one answer, to the edited question', {
  timeout: 40_000,
}, async () => {
  h.emu.pace.tokensPerSecond = 41;
  const channel = h.fake.addChannel({ name: 'edited-mid-stream' });
  const before = h.finished;
  const question = h.fake.sendMessage({ channelId: channel.id, content: `${h.mention} long 400` });
  const questionId = String(question.id);
  const first = await h.fake.waitFor(() => h.botMessages(channel.id)[0], { timeoutMs: 10_000, description: 'the first message of the answer' });
  const streaming = chatRequests().at(-1)!;

  h.emu.pace.tokensPerSecond = 0;
  h.fake.editUserMessage({ channelId: channel.id, messageId: questionId, content: `${h.mention} long 5` });
  await h.repliesFinished(before + 2, 30_000);

  await h.fake.waitFor(() => streaming.closed, { description: 'the first service request to close' });
  expect(streaming.closed?.byClient).toBe(true);
  expect(streaming.streamed!.sent).toBeLessThan(streaming.streamed!.total);
  expect(h.fake.message(first.id)!.deleted).toBe(true);
  const left = answers(channel.id);
  expect(left).toHaveLength(1);
  expect(left[0]!.replyTo).toBe(questionId);
  expect(left[0]!.content.split(/\s+/)).toHaveLength(5);
  expect(left[0]!.content).not.toContain('⚠️');
});

it('an edit of an older question, or one made more than 10 minutes after the question, changes nothing', { timeout: 20_000 }, async () => {
  const dm = h.fake.dmChannel.id;
  const older = await ask('first', { direct: true });
  const newest = await ask('second', { direct: true });
  const shown = answers(dm);
  const asked = chatRequests().length;

  let before = h.finished;
  h.fake.editUserMessage({ channelId: dm, messageId: older.questionId, content: 'first, edited' });
  await h.repliesFinished(before + 1);
  before = h.finished;
  const late = Date.now() + 11 * 60_000;
  h.fake.editUserMessage({ channelId: dm, messageId: newest.questionId, content: 'second, edited', at: late });
  await h.repliesFinished(before + 1);

  expect(answers(dm)).toEqual(shown);
  expect(chatRequests()).toHaveLength(asked);
  expect(deletesIn(dm)).toEqual([]);
});

it('a link preview added to the question, an edit that drops the mention, or an edit of a message Herald never answered changes nothing', {
  timeout: 20_000,
}, async () => {
  const linked = await ask('what is on https://example.com/page ?');
  const plain = await ask('hello');
  const other = h.fake.addChannel({ name: 'not-for-herald' });
  const unrelated = h.fake.sendMessage({ channelId: other.id, content: 'just chatting' });
  const shown = [answers(linked.channelId), answers(plain.channelId)];
  const asked = chatRequests().length;
  const finished = h.finished;

  h.fake.unfurlLinks({ channelId: linked.channelId, messageId: linked.questionId });
  h.fake.editUserMessage({ channelId: plain.channelId, messageId: plain.questionId, content: 'hello everyone' });
  h.fake.editUserMessage({ channelId: other.id, messageId: String(unrelated.id), content: 'just chatting, really' });
  // The gateway delivers in order: once a question sent after the edits is answered, Herald has seen them all.
  await ask('anything else?');

  expect(h.finished).toBe(finished + 1);
  expect(chatRequests()).toHaveLength(asked + 1);
  expect([answers(linked.channelId), answers(plain.channelId), answers(other.id)]).toEqual([...shown, []]);
  expect([...deletesIn(linked.channelId), ...deletesIn(plain.channelId)]).toEqual([]);
});
