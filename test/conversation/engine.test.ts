import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatInput } from '../../src/capabilities/chat.ts';
import type { Env } from '../../src/config/config.ts';
import { collectReply } from '../helpers/collect-reply.ts';
import { ConversationEngine, type EngineDeps } from '../../src/conversation/engine.ts';
import { PackageLoadError } from '../../src/errors.ts';
import { ServerError } from '../../src/service/errors.ts';
import { emptyServiceUsage } from '../../src/service/usage.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import type { Store } from '../../src/store/store.ts';
import { builtinTools } from '../../src/tools/builtin-tools.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { defineTool } from '../../src/tools/types.ts';
import { FakeAdapter, testConfig } from './fake-adapter.ts';
import { silentLogger } from '../helpers/logger.ts';
import { fakeChat, toolCall, type ScriptedAnswer } from './fake-chat.ts';
import { memoryWorkspace, workspaceMessage } from '../helpers/memory-workspace.ts';

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

function lastUser(input: ChatInput): string {
  const content = input.messages.findLast((m) => m.role === 'user')!.content;
  return typeof content === 'string' ? content : content!.map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join(' ');
}

describe('ConversationEngine: conversation', () => {
  it('answers, streams text and keeps the conversation for the next turn', async () => {
    const { adapter, requests } = setup([{ text: ['Hel', 'lo!'] }, { text: 'You said hi.' }]);
    const first = await adapter.send('hi');
    expect(first.text).toBe('Hello!');
    expect(first.events.filter((e) => e.type === 'text').map((e) => e.delta)).toEqual(['Hel', 'lo!']);
    expect(first.events.at(-1)).toEqual({ type: 'done', usage: expect.objectContaining({ serviceCalls: 1, promptTokens: 10 }) });
    await adapter.send('what did I say?', { author: 'Bob' });
    expect(requests[1]!.messages).toEqual([
      { role: 'user', content: '[Alice]: hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: '[Bob]: what did I say?' },
    ]);
  });

  it('keeps threads, channels and DMs apart, and reset forgets one conversation', async () => {
    const { adapter, engine, requests } = setup(() => ({ text: 'ok' }));
    await adapter.send('in thread', { threadId: 't1' });
    await adapter.send('in channel');
    await adapter.send('in dm', { isDirect: true, workspaceId: undefined, channelId: 'dm-1' });
    await adapter.send('thread again', { threadId: 't1' });
    expect(requests[3]!.messages.map((m) => m.content)).toEqual(['[Alice]: in thread', 'ok', '[Alice]: thread again']);
    expect(requests[2]!.messages).toEqual([{ role: 'user', content: 'in dm' }]);
    expect(await engine.reset({ platform: 'test', workspaceId: 'guild-1', channelId: 'channel-1', threadId: 't1' })).toBe(true);
    await adapter.send('after reset', { threadId: 't1' });
    expect(requests[4]!.messages).toHaveLength(1);
  });

  it('sends the recommended system prompt with the date in TZ and the speaker convention', async () => {
    const { adapter, requests } = setup([{ text: 'ok' }], { TZ: 'Asia/Tokyo' });
    await adapter.send('hi');
    expect(requests[0]!.system).toContain('You are Herald');
    expect(requests[0]!.system).toContain('Today is Tuesday, 14 January 2025 (time zone Asia/Tokyo).');
    expect(requests[0]!.system).toContain('knowledge cutoff is December 2024');
    expect(requests[0]!.system).toContain('[Alice]');
  });

  it('answers two quick messages in one thread strictly in order', async () => {
    const { adapter, requests } = setup((input) => ({ text: `re: ${lastUser(input)}`, delayMs: lastUser(input).includes('first') ? 150 : 0 }));
    const first = adapter.send('first', { threadId: 't' });
    const second = adapter.send('second', { threadId: 't' });
    const [a, b] = await Promise.all([first, second]);
    expect(a.text).toBe('re: [Alice]: first');
    expect(b.text).toBe('re: [Alice]: second');
    expect(b.statuses[0]).toBe('waiting for the previous reply…');
    expect(requests[1]!.messages.map((m) => m.content)).toEqual(['[Alice]: first', 're: [Alice]: first', '[Alice]: second']);
  });

  it('announces trimmed history and drops the oldest turns first', async () => {
    // Each long turn is about 360 tokens, the system prompt about 210: two long turns fit, a third one does not.
    const long = 'word '.repeat(280);
    const { adapter, requests } = setup(() => ({ text: 'ok' }), { CONTEXT_TOKENS: '1000' });
    await adapter.send(`one ${long}`);
    const second = await adapter.send(`two ${long}`);
    expect(second.notices).toEqual([]);
    const third = await adapter.send(`three ${'word '.repeat(100)}`);
    expect(third.notices).toEqual([{ type: 'notice', code: 'history_trimmed', text: 'Earlier messages were trimmed to fit the context.' }]);
    const sent = requests[2]!.messages.map((m) => String(m.content).slice(0, 14));
    expect(sent).toEqual(['[Alice]: two w', 'ok', '[Alice]: three']);
  });

  it('refuses a message too long for the context, politely', async () => {
    const { adapter, requests } = setup([{ text: 'never' }], { CONTEXT_TOKENS: '200' });
    const reply = await adapter.send('blah '.repeat(500));
    expect(reply.error).toMatchObject({ code: 'too_long', message: expect.stringMatching(/too much for me to read at once .*limit is 200/) });
    expect(requests).toHaveLength(0);
  });
});

describe('ConversationEngine: settings, thinking and search', () => {
  it('resolves persona, thinking and web search: request > channel > guild > config', async () => {
    const { adapter, engine, requests } = setup(() => ({ text: 'ok' }), { THINKING: 'on', WEB_SEARCH: 'auto' });
    await adapter.send('a');
    expect(requests[0]).toMatchObject({ thinking: true, webSearch: 'auto' });

    await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { persona: 'You are Guildbot.', thinking: false, webSearch: 'off' });
    await adapter.send('b');
    expect(requests[1]).toMatchObject({ thinking: false, webSearch: 'off' });
    expect(requests[1]!.system).toMatch(/^You are Guildbot\./);

    await engine.updateSettings(
      { platform: 'test', workspaceId: 'guild-1', channelId: 'channel-1' },
      { persona: 'You are Channelbot.', webSearch: 'force' },
    );
    const forced = await adapter.send('c');
    expect(requests[2]).toMatchObject({ thinking: false, webSearch: 'force' });
    expect(requests[2]!.system).toMatch(/^You are Channelbot\./);
    expect(forced.statuses[0]).toBe('searching the web…');

    await adapter.send('d', {}, { overrides: { thinking: true, webSearch: 'off' } });
    expect(requests[3]).toMatchObject({ thinking: true, webSearch: 'off' });

    await adapter.send('other channel', { channelId: 'channel-2' });
    expect(requests[4]!.system).toMatch(/^You are Guildbot\./);

    expect(await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1', channelId: 'channel-1' }, { persona: null })).toEqual({
      webSearch: 'force',
    });
    await expect(engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { webSearch: 'sometimes' as never })).rejects.toThrow(
      /off, auto or force/,
    );
  });

  it('uses a server or channel model for text turns, never for images', async () => {
    const { adapter, engine, requests } = setup(() => ({ text: 'ok' }));
    await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { model: 'svc-v2-flash' });
    await adapter.send('quick one');
    expect(requests[0]!.model).toBe('svc-v2-flash');
    await adapter.send('look', { images: [{ name: 'a.png', mime: 'image/png', data: new Uint8Array([1]) }] });
    expect(requests[1]!.model).toBe('svc-v2.5');
    await expect(engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { model: 'bad model!' })).rejects.toThrow(RangeError);
    await expect(engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { userDailyTokens: 0 })).rejects.toThrow(/at least 1/);
  });

  it('streams reasoning as its own events', async () => {
    const { adapter } = setup([{ reasoning: 'Let me think.', text: 'Answer.' }]);
    const reply = await adapter.send('why?');
    expect(reply.reasoning).toBe('Let me think.');
    expect(reply.text).toBe('Answer.');
  });

  it('passes the citations list and keeps markers matching it', async () => {
    const citations = [
      { index: 1, url: 'https://a.example', title: 'A' },
      { index: 2, url: 'https://b.example', title: 'B' },
    ];
    const { adapter } = setup([{ citations, text: ['It rained [1', '] and cleared [2].'], usage: { webSearch: { toolUsage: 2, pageUsage: 2 } } }]);
    const reply = await adapter.send('weather news');
    expect(reply.text).toBe('It rained [1] and cleared [2].');
    expect(reply.citations.map((c) => c.url)).toEqual(['https://a.example', 'https://b.example']);
    expect(reply.usage.webSearchCalls).toBe(2);
  });

  it('numbers sources of a later tool round after the earlier ones', async () => {
    const { adapter } = setup([
      { citations: [{ index: 1, url: 'https://a.example', title: 'A' }], calls: [toolCall('c1', 'calculate', { expression: '1+1' })] },
      {
        citations: [
          { index: 1, url: 'https://b.example', title: 'B' },
          { index: 2, url: 'https://a.example', title: 'A' },
        ],
        text: 'B says [1], A says [2].',
      },
    ]);
    const reply = await adapter.send('search and calculate');
    expect(reply.citations.map((c) => `${c.index} ${c.url}`)).toEqual(['1 https://a.example', '2 https://b.example']);
    expect(reply.text).toBe('B says [2], A says [1].');
  });

  it('in a later round renumbers grouped markers, also split across deltas, and leaves code such as items[1] alone', async () => {
    const { adapter } = setup([
      { citations: [{ index: 1, url: 'https://a.example', title: 'A' }], calls: [toolCall('c1', 'calculate', { expression: '1+1' })] },
      {
        citations: [
          { index: 1, url: 'https://b.example', title: 'B' },
          { index: 2, url: 'https://a.example', title: 'A' },
        ],
        text: ['Both agree [2,', ' 1]. Read `items[1]` and f(x)[2] [', '1].'],
      },
    ]);
    const reply = await adapter.send('search and calculate');
    expect(reply.text).toBe('Both agree [1, 2]. Read `items[1]` and f(x)[2] [2].');
  });
});

describe('ConversationEngine: tools', () => {
  it('runs parallel tool calls and sends each result back with its call id', async () => {
    const { adapter, requests } = setup([
      {
        calls: [
          toolCall('c1', 'calculate', { expression: '6*7' }),
          toolCall('c2', 'roll_dice', { notation: '1d1+0' }),
          toolCall('c3', 'current_time', {}),
        ],
      },
      { text: 'Done.' },
    ]);
    const reply = await adapter.send('compute things');
    expect(reply.text).toBe('Done.');
    expect(reply.statuses).toContain('using calculate, roll_dice, current_time…');
    const tools = requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(tools[0]!.content).toBe('6*7 = 42');
    expect(tools[1]!.content).toMatch(/^Error: dice need 2 to 1000 sides/);
    expect(JSON.parse(tools[2]!.content as string)).toMatchObject({ timezone: 'Europe/Berlin', utc: NOW.toISOString() });
    expect(requests[0]!.tools!.map((t) => t.function.name)).toEqual(['current_time', 'calculate', 'roll_dice', 'pick_random']);
    expect(reply.usage.serviceCalls).toBe(2);
  });

  it('runs the calls of one round at the same time', async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      parameters: { type: 'object', properties: {} },
      handler: async () => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(50);
        running -= 1;
        return 'ok';
      },
    });
    const { adapter } = setup(
      [{ calls: [toolCall('a', 'slow', {}), toolCall('b', 'slow', {}), toolCall('c', 'slow', {})] }, { text: 'ok' }],
      {},
      {
        tools: new ToolRegistry([slow]),
      },
    );
    await adapter.send('go');
    expect(peak).toBe(3);
  });

  it('feeds invalid JSON arguments back so the model can correct itself', async () => {
    const { adapter, requests } = setup([
      { calls: [toolCall('c1', 'calculate', '{"expression": "2+')] },
      { calls: [toolCall('c2', 'calculate', { expression: '2+2' })] },
      { text: '4' },
    ]);
    const reply = await adapter.send('2+2?');
    expect(reply.text).toBe('4');
    expect(requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'c1',
      content: expect.stringMatching(/^Error: the arguments are not valid JSON/),
    });
    expect(requests[2]!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c2', content: '2+2 = 4' });
  });

  it('keeps every reasoning_content of tool-call turns, in later rounds and later turns', async () => {
    const { adapter, requests } = setup([
      { reasoning: 'Need the calculator.', calls: [toolCall('c1', 'calculate', { expression: '1+1' })] },
      { reasoning: 'And the time.', calls: [toolCall('c2', 'current_time', {})] },
      { reasoning: 'Now answer.', text: 'Two, at ten.' },
      { text: 'Sure.' },
    ]);
    await adapter.send('sum and time');
    const assistants = requests[2]!.messages.filter((m) => m.role === 'assistant');
    expect(assistants.map((m) => m.reasoning_content)).toEqual(['Need the calculator.', 'And the time.']);
    await adapter.send('thanks');
    const later = requests[3]!.messages.filter((m) => m.role === 'assistant');
    expect(later.map((m) => [m.reasoning_content, m.tool_calls?.[0]?.id, m.content])).toEqual([
      ['Need the calculator.', 'c1', null],
      ['And the time.', 'c2', null],
      [undefined, undefined, 'Two, at ten.'],
    ]);
  });

  it('stops after MAX_TOOL_ROUNDS and asks for an answer without tools', async () => {
    const { adapter, requests } = setup(
      (input, n) => (input.tools ? { calls: [toolCall(`c${n}`, 'calculate', { expression: `${n}+1` })] } : { text: 'Best I can do.' }),
      { MAX_TOOL_ROUNDS: '2' },
    );
    const reply = await adapter.send('loop forever');
    expect(requests).toHaveLength(3);
    expect(requests[2]!.tools).toBeUndefined();
    expect(requests[2]!.system).toContain('You have already used tools 2 times for this reply, which is the limit.');
    expect(reply.text).toBe('Best I can do.');
    expect(reply.notices).toEqual([]);
  });

  it('tells the user when the model gives nothing after the tool limit', async () => {
    const { adapter } = setup((input, n) => (input.tools ? { calls: [toolCall(`c${n}`, 'calculate', { expression: '1' })] } : { text: '' }), {
      MAX_TOOL_ROUNDS: '1',
    });
    const reply = await adapter.send('loop');
    expect(reply.notices.map((n) => n.code)).toEqual(['tool_rounds_exhausted']);
    expect(reply.notices[0]!.text).toBe('I stopped after 1 round of tool use, so this answer may be incomplete.');
  });

  it('lists only the workspace messages the answer cites, not every match of the search', async () => {
    const { adapter } = setup([{ calls: [toolCall('s', 'search_messages', { query: 'ship' })] }, { text: 'Friday, says Carol [2].' }]);
    const workspace = memoryWorkspace({
      launch: [workspaceMessage('launch', 1, 'ship it?'), workspaceMessage('launch', 2, 'we ship on Friday', { author: 'Carol' })],
    });
    const reply = await adapter.send('when do we ship?', {}, { workspace });
    expect(reply.citations.map((c) => [c.index, c.url, c.message?.author])).toEqual([[2, 'https://chat.example/launch/2', 'Carol']]);
    expect(reply.text).toBe('Friday, says Carol [2].');
  });

  it('offers search_messages where the adapter reads the workspace: its sources join the reply sources, renumbered; tool attachments pass on', async () => {
    const chart = defineTool({
      name: 'chart',
      description: 'draws',
      parameters: { type: 'object', properties: {} },
      handler: () => ({ result: 'drawn', attachments: [{ name: 'chart.png', mime: 'image/png', data: Buffer.from('png') }] }),
    });
    const { adapter, requests } = setup(
      [
        {
          citations: [{ index: 1, url: 'https://web.example', title: 'Web' }],
          calls: [toolCall('r', 'search_messages', { query: 'ship' }), toolCall('d', 'chart', {})],
        },
        { text: 'Bob said so [2], the web agrees [1].' },
      ],
      {},
      { tools: new ToolRegistry([...builtinTools, chart]) },
    );
    const workspace = memoryWorkspace({
      launch: [workspaceMessage('launch', 1, 'lunch at noon'), workspaceMessage('launch', 2, 'ship it on Friday')],
    });
    const reply = await adapter.send('summarize', {}, { workspace });
    expect(requests[0]!.tools!.map((t) => t.function.name)).toContain('search_messages');
    expect(requests[1]!.messages.find((m) => m.tool_call_id === 'r')!.content).toMatch(
      /^Messages matching "ship", best first:\n\[2\] .* · #launch · Bob: ship it on Friday$/,
    );
    expect(reply.citations.map((c) => [c.index, c.url, c.message?.channelName])).toEqual([
      [1, 'https://web.example', undefined],
      [2, 'https://chat.example/launch/2', 'launch'],
    ]);
    expect(reply.text).toBe('Bob said so [2], the web agrees [1].');
    expect(reply.attachments).toEqual([{ type: 'attachment', name: 'chart.png', mime: 'image/png', data: Buffer.from('png') }]);
  });
});

describe('ConversationEngine: images and audio', () => {
  it('sends images to the vision model with the text as the question; history keeps a note, not the bytes', async () => {
    const { adapter, requests } = setup(
      [{ text: 'A cat.' }, { text: 'Grey.' }],
      {},
      {
        prepareImage: async () => ({ mime: 'image/png', data: Buffer.from('png-bytes'), width: 640, height: 480 }),
      },
    );
    const reply = await adapter.send('', { images: [{ name: 'cat.heic', data: new Uint8Array([1, 2, 3]) }] });
    expect(reply.text).toBe('A cat.');
    expect(reply.statuses).toContain('looking at the image…');
    expect(requests[0]!.model).toBe('svc-v2.5');
    expect(requests[0]!.tools).toBeUndefined();
    expect(requests[0]!.messages[0]!.content).toEqual([
      { type: 'text', text: '[Alice]: Describe this image.' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('png-bytes').toString('base64')}` } },
    ]);
    await adapter.send('what colour is it?');
    expect(requests[1]!.model).toBe('svc-v2.5-pro');
    expect(requests[1]!.messages[0]).toEqual({ role: 'user', content: '[Alice]: Describe this image.\n[image: cat.heic, 640x480]' });
  });

  it('counts image tokens by the spec formula against the budget', async () => {
    const { adapter } = setup(
      [{ text: 'never' }],
      { CONTEXT_TOKENS: '3000' },
      {
        prepareImage: async () => ({ mime: 'image/png', data: Buffer.from('x'), width: 2048, height: 2048 }),
      },
    );
    const reply = await adapter.send('look', { images: [{ name: 'big.png', data: new Uint8Array([1]) }] });
    expect(reply.error?.code).toBe('too_long');
    expect(reply.error?.message).toMatch(/about 4,\d{3} tokens/);
  });

  it('transcribes a voice message and answers it, showing the transcript', async () => {
    const transcribed: string[] = [];
    const { adapter, requests } = setup(
      [{ text: 'Milk is on the list.' }],
      {},
      {
        prepareAudio: async () => ({
          segments: [
            { mime: 'audio/wav', data: Buffer.from('part1') },
            { mime: 'audio/wav', data: Buffer.from('part2') },
          ],
          durationSeconds: 70,
        }),
        transcribe: async ({ audio }) => {
          transcribed.push(audio.data.toString());
          return {
            text: audio.data.toString() === 'part1' ? 'remind me' : 'to buy milk',
            usage: { ...emptyServiceUsage(), audioSeconds: 35, audioTokens: 875 },
          };
        },
      },
    );
    const reply = await adapter.send('', { audio: [{ name: 'voice.ogg', data: new Uint8Array([9]), isVoiceMessage: true }] });
    expect(transcribed).toEqual(['part1', 'part2']);
    expect(reply.transcripts).toEqual([{ name: 'voice.ogg', text: 'remind me to buy milk' }]);
    expect(reply.statuses[0]).toBe('transcribing…');
    expect(requests[0]!.messages[0]!.content).toBe('[Alice]: (voice message, transcribed) remind me to buy milk');
    expect(reply.text).toBe('Milk is on the list.');
    expect(reply.usage).toMatchObject({ serviceCalls: 3, audioSeconds: 70, audioTokens: 1750 });
  });

  it('only transcribes an audio file sent without a question, and remembers the transcript', async () => {
    const { adapter, requests } = setup(
      [{ text: 'It was about milk.' }],
      {},
      {
        transcribe: async () => ({ text: 'Meeting notes: buy milk.', usage: emptyServiceUsage() }),
      },
    );
    const reply = await adapter.send('', { audio: [{ name: 'meeting.mp3', mime: 'audio/mpeg', data: new Uint8Array([1]), isVoiceMessage: false }] });
    expect(reply.transcripts).toEqual([{ name: 'meeting.mp3', text: 'Meeting notes: buy milk.' }]);
    expect(reply.text).toBe('');
    expect(requests).toHaveLength(0);
    await adapter.send('what was that recording about?');
    expect(requests[0]!.messages.slice(0, 2)).toEqual([
      { role: 'user', content: '[Alice]: Please transcribe "meeting.mp3".' },
      { role: 'assistant', content: 'Transcript of "meeting.mp3":\nMeeting notes: buy milk.' },
    ]);
  });

  it('explains audio it cannot read', async () => {
    const { adapter } = setup([], {}, { transcribe: async () => ({ text: 'x', usage: emptyServiceUsage() }) });
    const reply = await adapter.send('', { audio: [{ name: 'clip.m4a', mime: 'audio/mp4', data: new Uint8Array([1]), isVoiceMessage: true }] });
    expect(reply.error).toMatchObject({ code: 'media', message: 'I can only read WAV and MP3 recordings here, not "clip.m4a".' });
  });
});

describe('ConversationEngine: quotas and usage', () => {
  it('explains a per-user rate limit with when to try again', async () => {
    const { adapter, requests } = setup(() => ({ text: 'ok' }), { QUOTA_USER_PER_MINUTE: '2' });
    await adapter.send('1');
    await adapter.send('2');
    const denied = await adapter.send('3');
    expect(denied.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/^You've reached your limit of 2 requests per minute — try again in \d+ s\.$/),
    });
    expect(denied.error!.retryAfterMs).toBeGreaterThan(25_000);
    expect(requests).toHaveLength(2);
    expect((await adapter.send('from Bob', { author: 'Bob' })).text).toBe('ok');
  });

  it("applies a server's stricter per-user limit, never a looser one", async () => {
    const { adapter, engine } = setup(() => ({ text: 'ok' }), { QUOTA_USER_PER_MINUTE: '3' });
    await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { userRequestsPerMinute: 1 });
    await adapter.send('1');
    expect((await adapter.send('2')).error?.message).toMatch(/^You've reached your limit of 1 request per minute/);
    await engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { userRequestsPerMinute: 50 });
    const loose = setup(() => ({ text: 'ok' }), { QUOTA_USER_PER_MINUTE: '1' });
    await loose.engine.updateSettings({ platform: 'test', workspaceId: 'guild-1' }, { userRequestsPerMinute: 50 });
    await loose.adapter.send('1');
    expect((await loose.adapter.send('2')).error?.message).toMatch(/limit of 1 request per minute/);
  });

  it('limits a whole guild too', async () => {
    const { adapter } = setup(() => ({ text: 'ok' }), { QUOTA_GUILD_PER_MINUTE: '1' });
    await adapter.send('1');
    const denied = await adapter.send('2', { author: 'Bob' });
    expect(denied.error?.message).toMatch(/^This server has reached its limit of 1 request per minute/);
  });

  it('stops a user over the daily token budget until midnight in TZ', async () => {
    const { adapter } = setup(() => ({ text: 'ok', usage: { promptTokens: 80, completionTokens: 40, totalTokens: 120 } }), {
      QUOTA_USER_DAILY_TOKENS: '100',
    });
    expect((await adapter.send('1')).text).toBe('ok');
    const denied = await adapter.send('2');
    // NOW is 11:00 in Berlin: 13 hours to midnight.
    expect(denied.error).toEqual({
      type: 'error',
      code: 'daily_budget',
      message: "You've used your daily budget of 100 tokens — it resets at midnight (Europe/Berlin), in 13 h.",
      retryAfterMs: 13 * 3600_000,
    });
  });

  it('records usage per user and per guild, today and in total', async () => {
    const { adapter, engine } = setup(() => ({
      text: 'ok',
      usage: {
        promptTokens: 100,
        completionTokens: 20,
        totalTokens: 120,
        reasoningTokens: 7,
        cachedTokens: 50,
        webSearch: { toolUsage: 3, pageUsage: 4 },
      },
    }));
    await adapter.send('a');
    await adapter.send('b', { author: 'Bob' });
    const alice = await engine.usage({ platform: 'test', userId: 'id-alice' });
    expect(alice.day).toBe('2025-01-14');
    expect(alice.today).toMatchObject({
      replies: 1,
      serviceCalls: 1,
      promptTokens: 100,
      completionTokens: 20,
      totalTokens: 120,
      reasoningTokens: 7,
      cachedTokens: 50,
      webSearchCalls: 3,
    });
    expect(alice.limits).toEqual({ requestsPerMinute: 10, dailyTokens: 200_000 });
    const guild = await engine.usage({ platform: 'test', workspaceId: 'guild-1' });
    expect(guild.total).toMatchObject({ replies: 2, totalTokens: 240, webSearchCalls: 6 });
  });
});

describe('ConversationEngine: failures and cancellation', () => {
  it('turns a service failure into a user-fit error and keeps no half answer in history', async () => {
    const { adapter, requests } = setup([
      { text: 'Half an', error: new ServerError('The service had a problem (502). Please try again in a moment.', { status: 502 }) },
      { text: 'ok' },
    ]);
    const reply = await adapter.send('hi');
    expect(reply.text).toBe('Half an');
    expect(reply.error).toEqual({ type: 'error', code: 'service', message: 'The service had a problem (502). Please try again in a moment.' });
    expect(reply.events.at(-1)!.type).toBe('done');
    await adapter.send('again');
    expect(requests[1]!.messages).toHaveLength(1);
  });

  it('tells the asker nothing of a package the operator has to install (the log names it)', async () => {
    const { adapter } = setup(
      [],
      {},
      {
        prepareImage: async () => {
          throw new PackageLoadError('sharp', new Error('Cannot find module sharp'));
        },
      },
    );
    const reply = await adapter.send('look', { images: [{ name: 'a.png', mime: 'image/png', data: new Uint8Array([1]) }] });
    expect(reply.error).toMatchObject({ code: 'internal', message: 'Something went wrong while answering; please try again.' });
  });

  it('hides unexpected errors behind a generic apology', async () => {
    const { adapter } = setup(() => {
      throw new TypeError('cannot read properties of undefined');
    });
    const reply = await adapter.send('hi');
    expect(reply.error).toMatchObject({ code: 'internal', message: 'Something went wrong while answering; please try again.' });
  });

  it('cancels the service request when the adapter stops reading, and frees the conversation', async () => {
    let onAbort!: () => void;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
    });
    const { engine, adapter } = setup((input) => {
      input.signal?.addEventListener('abort', onAbort);
      return { text: 'slow', delayMs: lastUser(input).includes('slow') ? 5000 : 0 };
    });
    const stream = engine.handle(adapter.message('slow one'));
    for await (const event of stream) if (event.type === 'status') break;
    await aborted;
    const next = await adapter.send('quick one');
    expect(next.text).toBe('slow');
  });

  it('cancels through the caller signal too', async () => {
    let onAsked!: () => void;
    const asked = new Promise<void>((resolve) => {
      onAsked = resolve;
    });
    const { engine, adapter } = setup(() => {
      onAsked();
      return { text: 'late', delayMs: 5000 };
    });
    const controller = new AbortController();
    const pending = collectReply(engine.handle(adapter.message('hi'), { signal: controller.signal }));
    await asked;
    controller.abort();
    const reply = await pending;
    expect(reply.error).toMatchObject({ code: 'cancelled' });
  });
});
