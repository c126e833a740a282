import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Exchange } from '../../src/conversation/context-budget.ts';
import { ConversationLocks } from '../../src/conversation/conversation-lock.ts';
import { ConversationHistory } from '../../src/conversation/history.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { silentLogger } from '../helpers/logger.ts';

const key = { platform: 'test', workspaceId: 'g', channelId: 'c', threadId: 't' };
const exchange = (text: string, tokens: number): Exchange => ({ messages: [{ role: 'user', content: text }], tokens, at: 0 });
const store = new MemoryStore();
const locks = new ConversationLocks(store, silentLogger);
afterEach(async () => {
  vi.useRealTimers();
  await store.keyv.clear();
});

describe('ConversationHistory', () => {
  it('forgets a conversation once its TTL passes without a new message', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const history = new ConversationHistory(store, { ttlMs: 80, budgetTokens: 1000, locks });
    await history.save(key, [exchange('hi', 5)]);
    vi.advanceTimersByTime(50);
    await history.save(key, [...(await history.load(key)), exchange('again', 5)]);
    vi.advanceTimersByTime(50);
    expect((await history.load(key)).map((e) => e.messages[0]!.content)).toEqual(['hi', 'again']);
    vi.advanceTimersByTime(60);
    expect(await history.load(key)).toEqual([]);
  });

  it('stores only what could still be sent within the context budget', async () => {
    const history = new ConversationHistory(store, { ttlMs: 60_000, budgetTokens: 100, locks });
    await history.save(key, [exchange('old', 60), exchange('mid', 30), exchange('new', 30)]);
    expect((await history.load(key)).map((e) => e.messages[0]!.content)).toEqual(['mid', 'new']);
  });

  it('keeps conversations apart, down to the thread', async () => {
    const history = new ConversationHistory(store, { ttlMs: 60_000, budgetTokens: 100, locks });
    await history.save(key, [exchange('in thread', 1)]);
    expect(await history.load({ ...key, threadId: undefined })).toEqual([]);
    expect(await history.load({ ...key, channelId: 'c:t', threadId: undefined })).toEqual([]);
    expect(await history.reset(key)).toBe(true);
    expect(await history.load(key)).toEqual([]);
  });

  it('forgets a channel together with its threads and reply chains, and a thread alone', async () => {
    const history = new ConversationHistory(store, { ttlMs: 60_000, budgetTokens: 100, locks });
    const channel = { platform: 'test', workspaceId: 'g', channelId: 'c' };
    const chains = ['root-1', 'root-2', 'root-3'].map((threadId) => ({ ...channel, threadId }));
    await Promise.all(chains.map((chain) => history.save(chain, [exchange('in a chain', 1)])));
    await history.save({ ...channel, channelId: 'elsewhere', threadId: 'root-9' }, [exchange('another channel', 1)]);

    expect(await history.reset(chains[0]!)).toBe(true);
    expect(await history.load(chains[1]!)).not.toEqual([]);
    expect(await history.reset(channel)).toBe(true);
    for (const chain of chains) expect(await history.load(chain)).toEqual([]);
    expect(await history.load({ ...channel, channelId: 'elsewhere', threadId: 'root-9' })).not.toEqual([]);
    expect(await history.reset(channel)).toBe(false);

    await history.save(chains[1]!, [exchange('after the reset', 1)]);
    expect(await history.reset(channel)).toBe(true);
    expect(await history.load(chains[1]!)).toEqual([]);
  });
});
