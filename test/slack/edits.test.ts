import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/service/types.ts';
import type { RecordedRequest } from '../fakes/service/state.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import type { FakeSlack, StoredMessage } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;

beforeAll(async () => {
  ({ fake, emu, herald } = await startSlackWorld({ emulator: { pace: { tokensPerSecond: 0, ttsChunkIntervalMs: 0 } } }));
});

beforeEach(() => {
  emu.pace.tokensPerSecond = 0;
});

afterAll(() => stopSlackWorld({ fake, emu, herald }));

function chatRequests(): RecordedRequest[] {
  return emu.requests.filter((r) => r.endpoint === 'chat');
}

/** The conversation a service request carried, without the system prompt. */
function conversation(request: RecordedRequest): string[] {
  return (request.body as { messages: ChatMessage[] }).messages.filter((m) => m.role !== 'system').map((m) => String(m.content));
}

/** Herald's messages answering a mention (in its thread) or a DM (after it on the timeline). */
function answersTo(channel: string, question: string, where: 'thread' | 'dm'): StoredMessage[] {
  return fake.botMessages(channel).filter((m) => (where === 'thread' ? m.thread_ts === question : !m.thread_ts && m.ts > question));
}

/** Asks and waits for the whole answer, `expected` (a stream stopped). */
async function ask(where: 'thread' | 'dm', text: string, expected: string) {
  const channel = where === 'thread' ? fake.addChannel({ name: `edits-${chatRequests().length}` }).id : fake.dmChannelId;
  const event = where === 'thread' ? fake.events.appMention({ text, channel }) : fake.events.directMessage({ text });
  const question = String(event.ts);
  await fake.deliverEvent(event);
  const [answer] = await fake.waitFor(() => {
    const answers = answersTo(channel, question, where);
    return answers.length === 1 && answers[0]!.text === expected && finished(answers[0]!) && answers;
  }, 10_000);
  return { channel, question, answer: answer! };
}

function finished(message: StoredMessage): boolean {
  return message.stream === undefined || message.stream.state === 'stopped';
}

it('an edit of a mention right after the answer replaces it in the thread, and the conversation goes on from the edited question', {
  timeout: 20_000,
}, async () => {
  const { channel, question, answer } = await ask('thread', 'what is the captial of France?', 'Echo: [alice]: what is the captial of France?');

  await fake.deliverEvent(fake.events.messageEdited({ channel, ts: question, text: `<@${fake.botUserId}> what is the capital of France?` }));
  const [now] = await fake.waitFor(() => {
    const answers = answersTo(channel, question, 'thread');
    return answers.length === 1 && answers[0]!.ts !== answer.ts && answers[0]!.text.endsWith('?') && finished(answers[0]!) && answers;
  }, 10_000);
  expect(now!.text).toBe('Echo: [alice]: what is the capital of France?');
  expect(fake.message(channel, answer.ts)).toBeUndefined();

  await fake.deliverEvent(fake.events.threadReply({ channel, thread_ts: question, text: 'and of Germany?' }));
  await fake.waitFor(() => answersTo(channel, question, 'thread').length === 2, 10_000);
  expect(conversation(chatRequests().at(-1)!)).toEqual([
    '[alice]: what is the capital of France?',
    'Echo: [alice]: what is the capital of France?',
    '[alice]: and of Germany?',
  ]);
});

it('a question about a file shared earlier in the thread, edited, reads the file again', { timeout: 20_000 }, async () => {
  const channel = fake.addChannel({ name: 'edited-about-a-file' }).id;
  const pdf = fake.uploadUserFile({ name: 'report.pdf', bytes: pdfFile([['Quarterly revenue grew 12 percent.']]) });
  const shared = fake.events.fileShare({ files: [pdf], text: 'Q3 report', channel });
  await fake.deliverEvent(shared);
  const threadTs = String(shared.ts);
  const mention = fake.events.appMention({ text: 'sumarize this', channel, thread_ts: threadTs });
  await fake.deliverEvent(mention);
  const first = await fake.waitFor(
    () => fake.thread(channel, threadTs).find((m) => m.user === fake.botUserId && finished(m) && m.text.includes('Quarterly')),
    10_000,
  );

  await fake.deliverEvent(fake.events.messageEdited({ channel, ts: String(mention.ts), text: `<@${fake.botUserId}> summarize this` }));
  const again = await fake.waitFor(() => {
    const answers = fake.thread(channel, threadTs).filter((m) => m.user === fake.botUserId);
    return answers.length === 1 && answers[0]!.ts !== first.ts && finished(answers[0]!) && answers[0]!.text.includes('Quarterly') && answers[0];
  }, 10_000);
  expect(again.text).toContain('Echo: [alice]: summarize this');
});

it.each([
  ['a mention, answered in its thread by a native stream', 'thread'],
  ['a direct message, answered by post and update', 'dm'],
] as const)(
  '%s, edited while the answer streams: the old stream is cancelled (its request aborted) and one answer remains',
  { timeout: 40_000 },
  async (_name, where) => {
    emu.pace.tokensPerSecond = 41;
    const channel = where === 'thread' ? fake.addChannel({ name: 'edited-mid-stream' }).id : fake.dmChannelId;
    const event = where === 'thread' ? fake.events.appMention({ text: 'long 400', channel }) : fake.events.directMessage({ text: 'long 400' });
    const question = String(event.ts);
    await fake.deliverEvent(event);
    const first = await fake.waitFor(() => answersTo(channel, question, where)[0], 10_000);
    const streaming = chatRequests().at(-1)!;

    emu.pace.tokensPerSecond = 0;
    const mention = where === 'thread' ? `<@${fake.botUserId}> ` : '';
    await fake.deliverEvent(fake.events.messageEdited({ channel, ts: question, text: `${mention}long 5` }));
    await fake.waitFor(() => streaming.closed, 10_000);
    expect(streaming.closed?.byClient).toBe(true);
    expect(streaming.streamed!.sent).toBeLessThan(streaming.streamed!.total);

    const [left] = await fake.waitFor(() => {
      const answers = answersTo(channel, question, where);
      return answers.length === 1 && answers[0]!.ts !== first.ts && answers[0]!.text.split(/\s+/).length === 5 && finished(answers[0]!) && answers;
    }, 10_000);
    await herald.settled();
    expect(answersTo(channel, question, where)).toEqual([left]);
    expect(left!.text).not.toContain('⚠️');
    expect(fake.message(channel, first.ts)).toBeUndefined();
  },
);

it('an edit of an older question, or one made more than 10 minutes after it, changes nothing', { timeout: 20_000 }, async () => {
  const older = await ask('dm', 'first', 'Echo: first');
  const newest = await ask('dm', 'second', 'Echo: second');
  const channel = fake.dmChannelId;
  const shown = answersTo(channel, older.question, 'dm').map((m) => [m.ts, m.text]);
  const asked = chatRequests().length;
  const deletes = fake.calls('chat.delete').length;

  await fake.deliverEvent(fake.events.messageEdited({ channel, ts: older.question, text: 'first, edited' }));
  await fake.deliverEvent(fake.events.messageEdited({ channel, ts: newest.question, text: 'second, edited', at: Date.now() + 11 * 60_000 }));
  await herald.settled();

  expect(answersTo(channel, older.question, 'dm').map((m) => [m.ts, m.text])).toEqual(shown);
  expect(chatRequests()).toHaveLength(asked);
  expect(fake.calls('chat.delete')).toHaveLength(deletes);
});

it('a link unfurled in the question, an edit that drops the mention, or an edit of a message Herald never answered changes nothing', {
  timeout: 20_000,
}, async () => {
  const linked = await ask('thread', 'what is on <https://example.com/page> ?', 'Echo: [alice]: what is on https://example.com/page ?');
  const plain = await ask('thread', 'hello', 'Echo: [alice]: hello');
  const elsewhere = fake.addChannel({ name: 'not-for-herald' }).id;
  const unrelated = fake.events.message({ channel: elsewhere, text: 'just chatting' });
  await fake.deliverEvent(unrelated);
  const asked = chatRequests().length;
  const deletes = fake.calls('chat.delete').length;

  await fake.deliverEvent(fake.events.linksUnfurled({ channel: linked.channel, ts: linked.question }));
  await fake.deliverEvent(fake.events.messageEdited({ channel: plain.channel, ts: plain.question, text: 'hello everyone' }));
  await fake.deliverEvent(fake.events.messageEdited({ channel: elsewhere, ts: String(unrelated.ts), text: 'just chatting, really' }));
  await herald.settled();

  expect(chatRequests()).toHaveLength(asked);
  expect(fake.calls('chat.delete')).toHaveLength(deletes);
  expect(answersTo(linked.channel, linked.question, 'thread')).toEqual([linked.answer]);
  expect(answersTo(plain.channel, plain.question, 'thread')).toEqual([plain.answer]);
  expect(fake.botMessages(elsewhere)).toEqual([]);
});
