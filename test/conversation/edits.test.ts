import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { collectReply, type CollectedReply } from '../helpers/collect-reply.ts';
import { conversationKeyOf } from '../../src/conversation/conversation-key.ts';
import { createEngine, type EngineHandle } from '../../src/conversation/create-engine.ts';
import { ConversationLocks } from '../../src/conversation/conversation-lock.ts';
import { ConversationHistory } from '../../src/conversation/history.ts';
import { EDIT_WINDOW_MS } from '../../src/conversation/replacement.ts';
import type { IncomingMessage, ReplyEvent } from '../../src/conversation/types.ts';
import type { ChatMessage } from '../../src/service/types.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { FakeAdapter, testConfig } from './fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';

let emulator: Emulator;
let handle: EngineHandle | undefined;

beforeAll(async () => {
  emulator = await startEmulator();
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(() => {
  emulator.reset();
  emulator.pace.tokensPerSecond = 0;
});

afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

const SENT_AT = Date.parse('2025-01-14T10:00:00Z');

async function start(env: Record<string, string> = {}): Promise<FakeAdapter> {
  const config = testConfig({
    API_BASE_URL: emulator.url,
    API_KEY: emulator.apiKey,
    STORE_URL: 'memory://',
    API_MAX_RETRIES: '0',
    QUOTA_USER_PER_MINUTE: '100',
    ...env,
  });
  handle = await createEngine({ config, logger: silentLogger });
  return new FakeAdapter(handle.engine, { channelId: `channel-${randomUUID()}` });
}

/** The user edits `message` to `text`, `afterMs` after sending it; Herald is asked to answer the edit instead. */
function edit(adapter: FakeAdapter, message: IncomingMessage, text: string, afterMs = 30_000, onSuperseded?: () => void) {
  return adapter.engine.handle(
    { ...message, text },
    { replaces: { messageId: message.messageId, sentAt: SENT_AT, editedAt: SENT_AT + afterMs }, ...(onSuperseded && { onSuperseded }) },
  );
}

function chatRequests() {
  return emulator.requests.filter((r) => r.endpoint === 'chat');
}

function lastConversation(): string[] {
  const body = chatRequests().at(-1)!.body as { messages: ChatMessage[] };
  return body.messages.filter((m) => m.role !== 'system').map((m) => String(m.content));
}

function replacement(reply: CollectedReply): ReplyEvent | undefined {
  return reply.events.find((e) => e.type === 'replacement');
}

it('an edit of the question just answered is answered instead of it: the next question sees only the edited exchange', async () => {
  const adapter = await start();
  await adapter.send('first question');
  const question = adapter.message('what is the captial of France?');
  expect((await collectReply(adapter.engine.handle(question))).text).toBe('Echo: [Alice]: what is the captial of France?');

  const again = await collectReply(edit(adapter, question, 'what is the capital of France?'));
  expect(again.events[0]).toEqual({ type: 'replacement', replaced: true });
  expect(again.text).toBe('Echo: [Alice]: what is the capital of France?');

  await adapter.send('thanks');
  expect(lastConversation()).toEqual([
    '[Alice]: first question',
    'Echo: [Alice]: first question',
    '[Alice]: what is the capital of France?',
    'Echo: [Alice]: what is the capital of France?',
    '[Alice]: thanks',
  ]);
});

it('an edit while the answer is still streaming stops that answer (its request is cancelled) and answers the edit', async () => {
  const adapter = await start();
  emulator.pace.tokensPerSecond = 40;
  const question = adapter.message('long 400');
  let superseded = 0;
  const first = adapter.engine.handle(question, { onSuperseded: () => superseded++ });
  const events = first[Symbol.asyncIterator]();
  while ((await events.next()).value?.type !== 'text');

  emulator.pace.tokensPerSecond = 0;
  const again = await collectReply(edit(adapter, question, 'long 5'));
  expect(superseded).toBe(1);
  expect(again.events[0]).toEqual({ type: 'replacement', replaced: true });
  expect(again.error).toBeUndefined();
  expect(again.text.split(/\s+/)).toHaveLength(5);

  const rest: ReplyEvent[] = [];
  for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value);
  expect(rest.filter((e) => e.type === 'error')).toEqual([]);
  expect(rest.at(-1)?.type).toBe('done');
  const cancelled = chatRequests()[0]!;
  expect(cancelled.closed?.byClient).toBe(true);

  await adapter.send('and now?');
  expect(lastConversation()).toEqual(['[Alice]: long 5', again.text, '[Alice]: and now?']);
});

it('an edit of an older message, one made too late, or one of a message never answered changes nothing and asks nothing', async () => {
  const adapter = await start();
  const older = adapter.message('one');
  await collectReply(adapter.engine.handle(older));
  const newest = adapter.message('two');
  await collectReply(adapter.engine.handle(newest));
  const asked = chatRequests().length;

  const declined = [
    await collectReply(edit(adapter, older, 'one, edited')),
    await collectReply(edit(adapter, newest, 'two, edited', EDIT_WINDOW_MS + 60_000)),
    await collectReply(edit(adapter, adapter.message('never seen'), 'never seen, edited')),
  ];
  for (const reply of declined) {
    expect(reply.events.map((e) => e.type)).toEqual(['replacement', 'done']);
    expect(replacement(reply)).toEqual({ type: 'replacement', replaced: false });
  }
  expect(chatRequests()).toHaveLength(asked);

  await adapter.send('three');
  expect(lastConversation()).toEqual(['[Alice]: one', 'Echo: [Alice]: one', '[Alice]: two', 'Echo: [Alice]: two', '[Alice]: three']);
});

it('an edit within the window, just under ten minutes, is still answered', async () => {
  const adapter = await start();
  const question = adapter.message('hello');
  await collectReply(adapter.engine.handle(question));
  const again = await collectReply(edit(adapter, question, 'hello there', EDIT_WINDOW_MS - 1000));
  expect(replacement(again)).toEqual({ type: 'replacement', replaced: true });
  expect(again.text).toBe('Echo: [Alice]: hello there');
});

it('an edit is a new request: over the quota it is refused, and the old exchange is gone all the same', async () => {
  const adapter = await start({ QUOTA_USER_PER_MINUTE: '2' });
  await adapter.send('one');
  const question = adapter.message('two');
  await collectReply(adapter.engine.handle(question));

  const refused = await collectReply(edit(adapter, question, 'two, edited'));
  expect(replacement(refused)).toEqual({ type: 'replacement', replaced: true });
  expect(refused.error?.code).toBe('rate_limited');
  expect(refused.text).toBe('');
  expect(chatRequests()).toHaveLength(2);
  const locks = new ConversationLocks(handle!.store, silentLogger);
  const history = new ConversationHistory(handle!.store, { ttlMs: 60_000, budgetTokens: 100_000, locks });
  const kept = await history.load(conversationKeyOf(question));
  expect(kept.map((e) => e.messages[0]!.content)).toEqual(['[Alice]: one']);
});
