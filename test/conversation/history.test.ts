import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Exchange } from '../../src/conversation/context-budget.ts';
import { ConversationHistory } from '../../src/conversation/history.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';

const key = { platform: 'test', workspaceId: 'g', channelId: 'c', threadId: 't' };
const exchange = (text: string, tokens: number): Exchange => ({ messages: [{ role: 'user', content: text }], tokens, at: 0 });
const store = new MemoryStore();
afterEach(async () => {
  vi.useRealTimers();
  await store.keyv.clear();
});

describe('ConversationHistory', () => {
  it('forgets a conversation once its TTL passes without a new message', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const history = new ConversationHistory(store, { ttlMs: 80, budgetTokens: 1000 });
    await history.save(key, [exchange('hi', 5)]);
    vi.advanceTimersByTime(50);
    await history.save(key, [...(await history.load(key)), exchange('again', 5)]);
    vi.advanceTimersByTime(50);
    expect((await history.load(key)).map((e) => e.messages[0]!.content)).toEqual(['hi', 'again']);
    vi.advanceTimersByTime(60);
    expect(await history.load(key)).toEqual([]);
  });

  it('stores only what could still be sent within the context budget', async () => {
    const history = new ConversationHistory(store, { ttlMs: 60_000, budgetTokens: 100 });
    await history.save(key, [exchange('old', 60), exchange('mid', 30), exchange('new', 30)]);
    expect((await history.load(key)).map((e) => e.messages[0]!.content)).toEqual(['mid', 'new']);
  });

  it('keeps conversations apart, down to the thread', async () => {
    const history = new ConversationHistory(store, { ttlMs: 60_000, budgetTokens: 100 });
    await history.save(key, [exchange('in thread', 1)]);
    expect(await history.load({ ...key, threadId: undefined })).toEqual([]);
    expect(await history.load({ ...key, channelId: 'c:t', threadId: undefined })).toEqual([]);
    expect(await history.reset(key)).toBe(true);
    expect(await history.load(key)).toEqual([]);
  });
});
