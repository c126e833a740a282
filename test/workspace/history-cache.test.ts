import { describe, expect, it } from 'vitest';
import { HistoryCache } from '../../src/workspace/history-cache.ts';
import { workspaceMessage } from '../helpers/memory-workspace.ts';

describe('the history cache', () => {
  it('reuses a read of the same channel and range until its time is up', () => {
    let now = 0;
    const cache = new HistoryCache({ ttlMs: 60_000, now: () => now });
    const read = { messages: [workspaceMessage('c', 1, 'hi')] };
    cache.set({ channelId: 'c', limit: 100 }, read);
    expect(cache.get({ channelId: 'c', limit: 100 })).toBe(read);
    expect(cache.get({ channelId: 'c', limit: 50 })).toBeUndefined();
    expect(cache.get({ channelId: 'c', threadId: 't', limit: 100 })).toBeUndefined();
    expect(cache.get({ channelId: 'c', since: 5, limit: 100 })).toBeUndefined();
    now = 59_999;
    expect(cache.get({ channelId: 'c', limit: 100 })).toBe(read);
    now = 60_000;
    expect(cache.get({ channelId: 'c', limit: 100 })).toBeUndefined();
  });

  it('drops every read holding a deleted or edited message, and no other', () => {
    const cache = new HistoryCache({ ttlMs: 60_000 });
    cache.set({ channelId: 'c', limit: 100 }, { messages: [workspaceMessage('c', 1, 'a'), workspaceMessage('c', 2, 'b')] });
    cache.set({ channelId: 'c', limit: 1 }, { messages: [workspaceMessage('c', 2, 'b')] });
    cache.set({ channelId: 'd', limit: 100 }, { messages: [workspaceMessage('d', 1, 'x')] });
    cache.forget('c-2');
    expect(cache.get({ channelId: 'c', limit: 100 })).toBeUndefined();
    expect(cache.get({ channelId: 'c', limit: 1 })).toBeUndefined();
    expect(cache.get({ channelId: 'd', limit: 100 })).toBeDefined();
  });

  it('drops the reads of a channel or thread someone wrote in', () => {
    const cache = new HistoryCache({ ttlMs: 60_000 });
    cache.set({ channelId: 'c', limit: 100 }, { messages: [] });
    cache.set({ channelId: 'c', threadId: 't', limit: 100 }, { messages: [] });
    cache.set({ channelId: 'd', threadId: 'u', limit: 100 }, { messages: [] });
    cache.set({ channelId: 'd', limit: 100 }, { messages: [] });
    cache.forgetChannel('c');
    cache.forgetChannel('u');
    expect(cache.get({ channelId: 'c', limit: 100 })).toBeUndefined();
    expect(cache.get({ channelId: 'c', threadId: 't', limit: 100 })).toBeUndefined();
    expect(cache.get({ channelId: 'd', threadId: 'u', limit: 100 })).toBeUndefined();
    expect(cache.get({ channelId: 'd', limit: 100 })).toBeDefined();
  });

  it('keeps at most 64 reads and 10,000 messages, the oldest read going first', () => {
    const cache = new HistoryCache({ ttlMs: 60_000 });
    for (let i = 0; i < 65; i += 1) cache.set({ channelId: `c${i}`, limit: 10 }, { messages: [] });
    expect(cache.get({ channelId: 'c0', limit: 10 })).toBeUndefined();
    expect(cache.get({ channelId: 'c1', limit: 10 })).toBeDefined();
    expect(cache.get({ channelId: 'c64', limit: 10 })).toBeDefined();
    const thousand = (channel: string) => ({ messages: Array.from({ length: 1000 }, (_, i) => workspaceMessage(channel, i, 'x')) });
    for (let i = 0; i < 11; i += 1) cache.set({ channelId: `big${i}`, limit: 1000 }, thousand(`big${i}`));
    expect(cache.get({ channelId: 'big0', limit: 1000 })).toBeUndefined();
    expect(cache.get({ channelId: 'big1', limit: 1000 })).toBeDefined();
    expect(cache.get({ channelId: 'big10', limit: 1000 })).toBeDefined();
  });
});
