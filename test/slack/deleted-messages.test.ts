import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/service/state.ts';
import type { ApiCall, FakeSlack, StoredMessage } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

// `long 400` is about 700 tokens: at 41 tokens a second the service streams for about 17 seconds.
const TOKENS_PER_SECOND = 41;

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;

beforeAll(async () => {
  ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: TOKENS_PER_SECOND, ttsChunkIntervalMs: 0 } } }));
});

beforeEach(() => {
  emu.pace.tokensPerSecond = TOKENS_PER_SECOND;
});

afterAll(() => stopSlackWorld({ fake, emu, herald }));

/** The service request of the latest answer, once its connection has closed. */
async function serviceRequest(): Promise<RecordedRequest> {
  const request = emu.requests.filter((r) => r.endpoint === 'chat').at(-1)!;
  return fake.waitFor(() => request.closed && request, 30_000);
}

/** Writes to a message (chat.update, appendStream, stopStream) and new messages, after the first `count` Web API calls. */
function writesAfter(count: number): ApiCall[] {
  const writes = new Set(['chat.postMessage', 'chat.update', 'chat.startStream', 'chat.appendStream', 'chat.stopStream']);
  return fake
    .calls()
    .slice(count)
    .filter((c) => writes.has(c.method));
}

/** Asks where Herald streams natively (a mention, answered in its thread) or posts and edits (a DM's timeline). */
async function ask(where: 'thread' | 'dm', text: string): Promise<{ channel: string; question: string; reply: StoredMessage }> {
  const event = where === 'thread' ? fake.events.appMention({ text }) : fake.events.directMessage({ text });
  const channel = String(event.channel);
  const question = String(event.ts);
  const mine = (m: StoredMessage) => m.channel === channel && (where === 'thread' ? m.thread_ts === question : !m.thread_ts && m.ts > question);
  await fake.deliverEvent(event);
  const reply = await fake.waitFor(() => fake.botMessages(channel).find(mine), 10_000);
  expect(reply.stream !== undefined).toBe(where === 'thread');
  return { channel, question, reply };
}

/** Waits until Herald writes to its reply after posting it: the answer is under way, far from its end. */
async function streaming(channel: string, reply: StoredMessage): Promise<void> {
  const writes = new Set(['chat.update', 'chat.appendStream']);
  await fake.waitFor(() => fake.calls().some((c) => writes.has(c.method) && c.args.channel === channel && c.args.ts === reply.ts), 10_000);
}

/** Removes a message as a person would; `tell` delivers the event Slack sends for it. */
async function deleteMessage(channel: string, ts: string, tell = true): Promise<void> {
  const event = fake.events.messageDeleted({ channel, ts });
  if (tell) await fake.deliverEvent(event);
}

describe.each([
  ['native streaming', 'thread'],
  ['post and update', 'dm'],
] as const)("Herald's reply deleted mid-stream (%s)", (_name, where) => {
  it.each([
    ['Slack sends the deletion event', true],
    ['only the next write finds the message gone', false],
  ])('stops at once: the service request is cancelled, nothing more is written, no error (%s)', { timeout: 40_000 }, async (_how, tell) => {
    const { channel, reply } = await ask(where, 'long 400');
    await streaming(channel, reply);
    // The fake deletes the message before this call returns: every call after these found it gone.
    const callsBefore = fake.calls().length;
    await deleteMessage(channel, reply.ts, tell);

    const service = await serviceRequest();
    expect(service.closed?.byClient).toBe(true);
    expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);

    await herald.settled();
    const after = writesAfter(callsBefore);
    // At most the one write that found the message gone; nothing posted instead, no error message.
    expect(after.length).toBeLessThanOrEqual(1);
    for (const call of after) {
      expect(call.args.ts).toBe(reply.ts);
      expect(call.response.error).toBe('message_not_found');
    }
    expect(fake.botMessages(channel).filter((m) => m.ts > reply.ts)).toEqual([]);
  });
});

it('a reply that went on into a second message stops when the first is deleted; the second stays, its stream closed', {
  timeout: 60_000,
}, async () => {
  emu.pace.tokensPerSecond = 600;
  const { channel, question, reply } = await ask('thread', 'long 3000');
  const second = await fake.waitFor(() => fake.thread(channel, question).filter((m) => m.user === fake.botUserId)[1], 20_000);
  await deleteMessage(channel, reply.ts);

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total);
  const left = await fake.waitFor(() => {
    const now = fake.message(channel, second.ts);
    return now?.stream?.state === 'stopped' && now;
  });
  const shown = left.text;
  expect(shown).not.toContain('⚠️');
  await herald.settled();
  expect(
    fake
      .thread(channel, question)
      .filter((m) => m.user === fake.botUserId)
      .map((m) => [m.ts, m.text]),
  ).toEqual([[second.ts, shown]]);
});

describe.each([
  ['a mention, answered in its thread by a native stream', 'thread'],
  ['a direct message, answered by post and update', 'dm'],
] as const)('the question deleted while Herald answers it: %s', (_name, where) => {
  it('stops the answer and removes what Herald had posted of it', { timeout: 40_000 }, async () => {
    const { channel, question, reply } = await ask(where, 'long 400');
    await streaming(channel, reply);
    await deleteMessage(channel, question);

    const service = await serviceRequest();
    expect(service.closed?.byClient).toBe(true);
    expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);
    await fake.waitFor(() => fake.calls('chat.delete').find((c) => c.args.ts === reply.ts), 5_000);
    expect(fake.message(channel, reply.ts)).toBeUndefined();
    // A mention's thread went with the answer: its tombstone is gone too.
    expect(fake.message(channel, question)).toBeUndefined();
    await herald.settled();
    expect(fake.botMessages(channel).filter((m) => m.ts > question)).toEqual([]);
  });

  it('deleting it after the answer is complete changes nothing', { timeout: 20_000 }, async () => {
    emu.pace.tokensPerSecond = 0;
    const { channel, question, reply } = await ask(where, 'long 30');
    const done = await fake.waitFor(() => {
      const now = fake.message(channel, reply.ts);
      return now && (where === 'thread' ? now.stream?.state === 'stopped' : now.text.split(/\s+/).length >= 30) && now;
    });
    const shown = done.text;
    await herald.settled();
    await deleteMessage(channel, question);
    await herald.settled();
    expect(fake.message(channel, reply.ts)?.text).toBe(shown);
    expect(fake.calls('chat.delete').filter((c) => c.args.ts === reply.ts)).toEqual([]);
  });
});
