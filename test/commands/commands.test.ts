import { describe, expect, it } from 'vitest';
import { optionsOf, type CommandContext, type CommandServices, type OptionValue, type OutgoingFile } from '../../commands/command.ts';
import { commands } from '../../commands/index.ts';
import { narrate } from '../../commands/narrate.ts';
import { runCommand } from '../../commands/run-command.ts';
import { say } from '../../commands/say.ts';
import { settings } from '../../commands/settings.ts';
import { usage } from '../../commands/usage.ts';
import type { SpeechInput } from '../../src/capabilities/synthesize.ts';
import { ConversationEngine } from '../../src/conversation/engine.ts';
import type { SpeechFormat } from '../../src/speech/speak.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { fakeChat } from '../conversation/fake-chat.ts';
import { testConfig } from '../conversation/fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';

function harness(env: Record<string, string> = {}) {
  const config = testConfig(env);
  const chat = fakeChat(() => ({ text: 'ok' }));
  const store = new MemoryStore();
  const engine = new ConversationEngine({ config, logger: silentLogger, store, chat: chat.chat });
  const spoken: Array<{ input: SpeechInput; format: SpeechFormat }> = [];
  const services: CommandServices = {
    config,
    logger: silentLogger,
    engine,
    store,
    speak: async (input, format) => {
      spoken.push({ input, format });
      return { format, mime: 'audio/ogg', data: Buffer.alloc(10), durationSeconds: 1, waveform: 'AA==' };
    },
  };
  const replies: string[] = [];
  const uploads: OutgoingFile[] = [];
  const context = (options: Record<string, OptionValue>, isAdmin = true): CommandContext => ({
    platform: 'discord',
    workspaceId: 'guild-1',
    channelId: 'channel-1',
    invocationId: 'i1',
    user: { id: 'u1', displayName: 'Ada', isAdmin },
    isDirect: false,
    options: new Map(Object.entries(options)),
    uploadLimitBytes: 1024,
    voiceMessages: true,
    defer: async () => {},
    reply: async (text) => void replies.push(text),
    replyStream: async () => {},
    upload: async (file) => void uploads.push(file),
  });
  return { services, engine, replies, uploads, spoken, context, requests: chat.requests };
}

/** Someone asks "hi" in the harness's server channel; resolves when the answer is done. */
async function askInServer(engine: ConversationEngine): Promise<void> {
  await collect(
    engine.handle({
      platform: 'discord',
      workspaceId: 'guild-1',
      channelId: 'channel-1',
      messageId: 'm1',
      author: { id: 'u9', displayName: 'Bo' },
      text: 'hi',
      isDirect: false,
    }),
  );
}

describe('/settings', () => {
  it('lets an admin set the server model, default voice and stricter user limits, and shows them', async () => {
    const { services, engine, replies, context, requests } = harness();
    await runCommand(settings, context({ model: 'svc-v2-flash', voice: 'en', user_requests_per_minute: 2 }), services);
    expect(replies.at(-1)).toMatch(/^Saved\. Settings for this server — .*model: svc-v2-flash · voice: default_en · requests per user per minute: 2/);
    await runCommand(say, context({ text: 'hello' }), services);
    await askInServer(engine);
    expect(requests.at(-1)!.model).toBe('svc-v2-flash');
    await runCommand(settings, context({ user_requests_per_minute: 0, model: 'default' }), services);
    expect(replies.at(-1)).toMatch(/model: default · voice: default_en · requests per user per minute: default/);
  });

  it('refuses non-admins and explains bad values', async () => {
    const { services, replies, context } = harness();
    await runCommand(settings, context({ model: 'x' }, false), services);
    expect(replies.at(-1)).toBe('Only administrators can use /settings.');
    await runCommand(settings, context({ model: 'not a model!' }), services);
    expect(replies.at(-1)).toMatch(/^"not a model!" is not a model Herald may use here\. Choose one of: svc-v2\.5-pro, /);
  });

  it('accepts only models on the allow list, and never uses one stored before it was listed', async () => {
    const { services, engine, replies, context, requests } = harness({ CHAT_MODELS_ALLOWED: 'svc-v2-flash' });
    await runCommand(settings, context({ model: 'svc-ultra-expensive' }), services);
    expect(replies.at(-1)).toBe('"svc-ultra-expensive" is not a model Herald may use here. Choose one of: svc-v2.5-pro, svc-v2-flash.');
    expect(await engine.getSettings({ platform: 'discord', workspaceId: 'guild-1' })).toEqual({});
    await engine.updateSettings({ platform: 'discord', workspaceId: 'guild-1' }, { model: 'svc-ultra-expensive' });
    await askInServer(engine);
    expect(requests.at(-1)!.model).toBe('svc-v2.5-pro');
  });
});

describe('/ask search', () => {
  it('cannot turn web search on where the server or channel turned it off, but can where it is on', async () => {
    const { services, context, requests } = harness();
    const ask = commands.find((c) => c.name === 'ask')!;
    const asking = (options: Record<string, OptionValue>) => ({ ...context(options), replyStream: collect });
    await runCommand(settings, context({ web_search: 'off' }), services);
    await runCommand(ask, asking({ question: 'news?', search: true }), services);
    expect(requests.at(-1)!.webSearch).toBe('off');
    await runCommand(settings, context({ web_search: 'auto', scope: 'server' }), services);
    await runCommand(settings, context({ web_search: 'off', scope: 'channel' }), services);
    await runCommand(ask, asking({ question: 'news?', search: true }), services);
    expect(requests.at(-1)!.webSearch).toBe('off');
    await runCommand(settings, context({ web_search: 'default', scope: 'channel' }), services);
    await runCommand(ask, asking({ question: 'news?', search: true }), services);
    expect(requests.at(-1)!.webSearch).toBe('force');
  });
});

describe('/say', () => {
  it("speaks in the server's default voice unless the user picks one, as a voice message", async () => {
    const { services, spoken, uploads, context } = harness();
    await runCommand(settings, context({ voice: 'zh' }), services);
    await runCommand(say, context({ text: 'ni hao' }), services);
    await runCommand(say, context({ text: 'hello', voice: 'en' }), services);
    expect(spoken.map((s) => [s.input.voice, s.format])).toEqual([
      ['default_zh', 'ogg'],
      ['default_en', 'ogg'],
    ]);
    expect(uploads[0]).toMatchObject({ name: 'voice-message.ogg', voiceMessage: { durationSeconds: 1, waveform: 'AA==' } });
  });

  it('explains an upload over the limit instead of failing', async () => {
    const { services, replies, uploads, context } = harness();
    services.speak = async (_input, format) => ({ format, mime: 'audio/wav', data: Buffer.alloc(4096), durationSeconds: 3 });
    await runCommand(say, context({ text: 'a long speech', format: 'wav' }), services);
    expect(uploads).toHaveLength(0);
    expect(replies.at(-1)).toMatch(/over this channel's upload limit of 0\.0 MB\. Try a shorter text or the voice-message format/);
  });
});

describe('/say input and budgets', () => {
  it('refuses blank text before anything is queued or synthesized', async () => {
    const { services, spoken, uploads, replies, context } = harness();
    await runCommand(say, context({ text: '  \n ' }), services);
    expect(replies).toEqual(['There is nothing to say: give /say some text.']);
    expect(spoken).toEqual([]);
    expect(uploads).toEqual([]);
  });

  it('checks the lengths itself, whatever the platform let through', async () => {
    const { services, spoken, replies, context } = harness();
    await runCommand(say, context({ text: 'a'.repeat(2001) }), services);
    await runCommand(say, context({ text: 'hello', style: 's'.repeat(101) }), services);
    expect(replies).toEqual(['That text is 2001 characters long; /say speaks at most 2000.', 'That style is 101 characters long; at most 100.']);
    expect(spoken).toEqual([]);
  });

  it('goes through the per-user quota like chat, and shows in /usage', async () => {
    const { services, spoken, replies, context } = harness({ QUOTA_USER_PER_MINUTE: '2' });
    for (const text of ['one', 'two', 'three', 'four']) await runCommand(say, context({ text }), services);
    expect(spoken.map((s) => s.input.text)).toEqual(['one', 'two']);
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply).toMatch(/^You've reached your limit of 2 requests per minute — try again in \d+ s\.$/);
    await runCommand(usage, context({}), services);
    expect(replies.at(-1)).toMatch(/^\*\*You today:\*\* 2 replies/);
  });

  it("counts against the server's budget too: a second member is refused once the server's minute is spent", async () => {
    const { services, spoken, replies, context } = harness({ QUOTA_GUILD_PER_MINUTE: '1' });
    await runCommand(say, context({ text: 'first' }), services);
    await runCommand(say, { ...context({ text: 'second' }), user: { id: 'u2', displayName: 'Bo', isAdmin: false } }, services);
    expect(spoken.map((s) => s.input.text)).toEqual(['first']);
    expect(replies.at(-1)).toMatch(/^This server has reached its limit of 1 request per minute/);
  });
});

describe('subcommands', () => {
  it('a command with subcommands takes its options only through them', () => {
    for (const command of commands.filter((c) => c.subcommands)) expect(command.options, command.name).toEqual([]);
    expect(optionsOf(narrate, 'start').map((o) => [o.name, o.type])).toEqual([
      ['channel', 'channel'],
      ['voice', 'string'],
      ['style', 'string'],
    ]);
    expect(optionsOf(narrate, 'stop')).toEqual([]);
    expect(optionsOf(settings)).toBe(settings.options);
  });

  it('/narrate outside a server says where it works, whichever subcommand', async () => {
    const { services, replies, context } = harness();
    await runCommand(narrate, { ...context({}), subcommand: 'start' }, services);
    await runCommand(narrate, { ...context({}), subcommand: 'stop' }, services);
    expect(replies).toEqual(['Narration works in server voice channels only.', 'Narration works in server voice channels only.']);
  });
});

async function collect(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}
