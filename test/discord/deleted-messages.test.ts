import { Events } from 'discord.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import type { RecordedRequest } from '../fakes/service/state.ts';
import { startHarness, type Harness } from './harness.ts';

// `long 400` is about 700 tokens: at 41 tokens a second the service streams for about 17 seconds.
const TOKENS_PER_SECOND = 41;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ emulator: { pace: { tokensPerSecond: TOKENS_PER_SECOND, ttsChunkIntervalMs: 0 } } });
});

beforeEach(() => {
  h.emu.pace.tokensPerSecond = TOKENS_PER_SECOND;
});

afterAll(async () => {
  await h.close();
});

/** Asks in a channel of its own; resolves once Herald's first message of the answer is there. */
async function askAndWaitForAnswer(content: string) {
  const channel = h.fake.addChannel({ name: `deleted-${h.finished}` });
  const before = h.finished;
  const question = h.fake.sendMessage({ channelId: channel.id, content: `${h.mention} ${content}` });
  const first = await h.fake.waitFor(() => h.botMessages(channel.id)[0], { timeoutMs: 10_000, description: 'the first message of the answer' });
  return { channelId: channel.id, questionId: String(question.id), first, done: () => h.repliesFinished(before + 1, 30_000) };
}

/** The service request of the answer, once its connection has closed. */
async function serviceRequest(): Promise<RecordedRequest> {
  const request = h.emu.requests.filter((r) => r.endpoint === 'chat').at(-1)!;
  return h.fake.waitFor(() => request.closed && request, { timeoutMs: 5_000, description: 'the service request to close' });
}

/** Requests to the channel's messages among the fake's requests from index `from` on. */
function requestsIn(channelId: string, from = 0) {
  return h.fake.requests.slice(from).filter((r) => r.params.channel_id === channelId && r.route?.startsWith('/channels/:channel_id/messages'));
}

/** Resolves once Herald's client has received the gateway's MESSAGE_DELETE (Herald reacts to it as it arrives). */
function deleteReceived(): Promise<void> {
  return new Promise((resolve) => {
    const onRaw = (packet: { t?: string }) => {
      if (packet.t !== 'MESSAGE_DELETE') return;
      h.bot.client.off(Events.Raw, onRaw);
      resolve();
    };
    h.bot.client.on(Events.Raw, onRaw);
  });
}

it("stops at once when a moderator deletes Herald's reply mid-stream: the service request is cancelled, nothing more is sent, no error", {
  timeout: 40_000,
}, async () => {
  const answer = await askAndWaitForAnswer('long 400');
  const deletedAt = h.fake.requests.length;
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.first.id });
  await answer.done();

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);

  // At most the one edit already on its way when the message went; no error message, nothing new.
  const after = requestsIn(answer.channelId, deletedAt);
  expect(after.filter((r) => r.method === 'POST')).toEqual([]);
  expect(after.filter((r) => r.method === 'PATCH').length).toBeLessThanOrEqual(1);
  expect(h.botMessages(answer.channelId)).toEqual([]);
});

it('a deleted reply that Discord reports first as 404 on the next edit stops it the same way', { timeout: 40_000 }, async () => {
  const answer = await askAndWaitForAnswer('long 400');
  // The gateway's MESSAGE_DELETE comes late: the edit's 404 (Unknown Message, 10008) is the first to say so.
  const deletedAt = h.fake.requests.length;
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.first.id, gatewayDelayMs: 10_000 });
  await answer.done();

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);
  const after = requestsIn(answer.channelId, deletedAt);
  expect(after.filter((r) => r.method === 'PATCH').map((r) => r.status)).toEqual([404]);
  expect(after.filter((r) => r.method === 'POST')).toEqual([]);
});

it('a reply that went on into a second message stops when the first is deleted; the second stays as it is', { timeout: 60_000 }, async () => {
  h.emu.pace.tokensPerSecond = 150;
  const answer = await askAndWaitForAnswer('long 1500');
  const second = await h.fake.waitFor(() => h.botMessages(answer.channelId)[1], { timeoutMs: 30_000, description: 'a second message' });
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.first.id });
  await answer.done();

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total);
  const left = h.botMessages(answer.channelId);
  expect(left.map((m) => m.id)).toEqual([second.id]);
  const shown = left[0]!.content;
  expect(shown).not.toContain('⚠️');
});

it('deleting the question mid-answer stops it and removes what Herald had posted of the answer', { timeout: 40_000 }, async () => {
  const answer = await askAndWaitForAnswer('long 400');
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.questionId });
  await answer.done();

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);
  expect(h.botMessages(answer.channelId)).toEqual([]);
  const deletes = h.fake.requests.filter((r) => r.method === 'DELETE' && r.params.channel_id === answer.channelId);
  expect(deletes.map((r) => [r.params.message_id, r.status])).toEqual([[answer.first.id, 204]]);
});

it('a question deleted before any of the answer was posted gets no answer at all', { timeout: 20_000 }, async () => {
  h.emu.faults.push({ delayMs: 1500 });
  const channel = h.fake.addChannel({ name: 'withdrawn-early' });
  const before = h.finished;
  const question = h.fake.sendMessage({ channelId: channel.id, content: `${h.mention} never mind` });
  await h.fake.waitFor(() => h.emu.requests.find((r) => r.endpoint === 'chat' && !r.closed), { description: 'the service request' });
  h.fake.deleteUserMessage({ channelId: channel.id, messageId: String(question.id) });
  await h.repliesFinished(before + 1);
  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(requestsIn(channel.id).filter((r) => r.method !== 'GET')).toEqual([]);
});

it('deleting the question after the answer is complete changes nothing', { timeout: 20_000 }, async () => {
  h.emu.pace.tokensPerSecond = 0;
  const answer = await askAndWaitForAnswer('long 30');
  await answer.done();
  const shown = h.botMessages(answer.channelId).map((m) => m.content);
  const deletedAt = h.fake.requests.length;
  const received = deleteReceived();
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.questionId });
  await received;
  expect(requestsIn(answer.channelId, deletedAt).filter((r) => r.method !== 'GET')).toEqual([]);
  expect(h.botMessages(answer.channelId).map((m) => m.content)).toEqual(shown);
  expect(shown.join(' ').split(/\s+/).filter(Boolean)).toHaveLength(30);
});

it("/ask's streamed answer deleted by a moderator stops the same way (the interaction webhook answers 10008)", { timeout: 40_000 }, async () => {
  await registerCommands(h.config);
  const before = h.finished;
  const record = h.fake.invokeCommand({ name: 'ask', options: { question: 'long 400' } as never });
  const answer = await h.fake.waitFor(
    () => {
      const id = h.fake.interaction(record.id)?.originalMessageId;
      const message = id ? h.fake.message(id) : undefined;
      return message && message.content.length > 0 && message;
    },
    { timeoutMs: 10_000, description: 'the streamed answer' },
  );
  const deletedAt = h.fake.requests.length;
  h.fake.deleteUserMessage({ channelId: answer.channelId, messageId: answer.id });
  await h.repliesFinished(before + 1, 30_000);

  const service = await serviceRequest();
  expect(service.closed?.byClient).toBe(true);
  expect(service.streamed!.sent).toBeLessThan(service.streamed!.total / 2);
  const writes = h.fake.requests.slice(deletedAt).filter((r) => (r.method === 'POST' || r.method === 'PATCH') && r.path.includes('/webhooks/'));
  expect(writes.length).toBeLessThanOrEqual(1);
  for (const write of writes) expect([write.method, write.status]).toEqual(['PATCH', 404]);
});
