import { afterEach, describe, expect, it } from 'vitest';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { silentLogger } from '../helpers/logger.ts';
import { testConfig } from './fake-adapter.ts';
import { fakeChat } from './fake-chat.ts';

const stores: MemoryStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function engineOn(store = new MemoryStore()): ConversationEngine {
  stores.push(store);
  return new ConversationEngine({ config: testConfig(), logger: silentLogger, store, chat: fakeChat([]).chat });
}

const channel = { platform: 'test', workspaceId: 'guild-1', channelId: 'channel-1' };
const thread = { ...channel, threadId: 'thread-1' };

describe('member personas and trigger settings in the store', () => {
  it('keeps a member persona per conversation, only where allowed, validated like the channel persona', async () => {
    const engine = engineOn();
    expect(await engine.setConversationPersona(thread, 'You are a tutor.')).toBe(false);
    expect((await engine.settingsFor(thread)).persona).toBeUndefined();

    await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { memberPersonas: true, persona: 'You are Guildbot.' });
    expect(await engine.setConversationPersona(thread, '  You are a tutor.  ')).toBe(true);
    expect((await engine.settingsFor(thread)).persona).toBe('You are a tutor.');
    expect((await engine.settingsFor({ ...channel, threadId: 'thread-2' })).persona).toBe('You are Guildbot.');
    await expect(engine.setConversationPersona(thread, '   ')).rejects.toThrow('persona must be non-empty text');
    await expect(engine.setConversationPersona(thread, 'x'.repeat(4001))).rejects.toThrow('persona must be at most 4000 characters');

    // A channel that turns member personas off wins over its server.
    await engine.updateSettings(channel, { memberPersonas: false });
    expect((await engine.settingsFor(thread)).persona).toBe('You are Guildbot.');
    expect(await engine.setConversationPersona(thread, null)).toBe(false);
  });

  it('stores trigger words lower case without the punctuation around them, and refuses lists that are too long', async () => {
    const engine = engineOn();
    const saved = await engine.updateSettings(channel, { triggerWords: [' Herald, ', 'HEY  Herald!', 'herald'], answerAll: true });
    expect(saved).toEqual({ triggerWords: ['herald', 'hey herald'], answerAll: true });
    expect(await engine.triggersFor(thread)).toEqual({ answerAll: true, autoThread: false, words: ['herald', 'hey herald'], statusReactions: false });
    await expect(engine.updateSettings(channel, { triggerWords: Array.from({ length: 11 }, (_, i) => `w${i}`) })).rejects.toThrow('1 to 10 words');
    await expect(engine.updateSettings(channel, { triggerWords: ['?!'] })).rejects.toThrow('needs a letter or digit');
    await expect(engine.updateSettings(channel, { triggerWords: ['x'.repeat(41)] })).rejects.toThrow('at most 40 characters');
    await expect(engine.updateSettings(channel, { answerAll: 'yes' as never })).rejects.toThrow('answerAll must be true or false');
  });

  it('answers mentions only when the store cannot say what a channel’s triggers are', async () => {
    const store = new MemoryStore();
    const engine = engineOn(store);
    await engine.updateSettings(channel, { answerAll: true });
    store.get = async () => {
      throw new Error('store down');
    };
    expect(await engine.triggersFor(channel)).toEqual({ answerAll: false, autoThread: false, words: [], statusReactions: false });
  });
});
