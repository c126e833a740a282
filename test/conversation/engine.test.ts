import { afterEach, describe, expect, it } from 'vitest';
import { ConversationEngine, type EngineDeps } from '../../src/conversation/engine.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import { fakeChat, toolCall, type ScriptedAnswer } from './fake-chat.ts';
import { FakeAdapter, silentLogger, testConfig } from './fake-adapter.ts';
import type { ChatInput } from '../../src/capabilities/chat.ts';
import type { Env } from '../../src/config/config.ts';

const NOW = new Date('2025-01-14T10:00:00Z');
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

function setup(script: ScriptedAnswer[] | ((input: ChatInput, n: number) => ScriptedAnswer), env: Env = {}, extra: Partial<EngineDeps> = {}) {
  const store = new MemoryStore();
  stores.push(store);
  const fake = fakeChat(script);
  const engine = new ConversationEngine({ config: testConfig(env), logger: silentLogger, store, chat: fake.chat, now: () => NOW, ...extra });
  return { engine, store, requests: fake.requests, adapter: new FakeAdapter(engine) };
}

describe('ConversationEngine', () => {
  it('answers, streams text and keeps the conversation for the next turn', async () => {
    const { adapter, requests } = setup([{ text: ['Hel', 'lo!'] }, { text: 'You said hi.' }]);
    const first = await adapter.send('hi');
    expect(first.text).toBe('Hello!');
    expect(first.events.at(-1)).toEqual({ type: 'done', usage: expect.objectContaining({ serviceCalls: 1, promptTokens: 10 }) });
    await adapter.send('what did I say?', { author: 'Bob' });
    expect(requests[1]!.messages).toEqual([
      { role: 'user', content: '[Alice]: hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: '[Bob]: what did I say?' },
    ]);
  });
});
