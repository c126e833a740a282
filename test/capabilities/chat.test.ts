import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chat } from '../../src/capabilities/chat.ts';
import type { FunctionTool } from '../../src/service/types.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { dataUrl, imageBytes } from '../fakes/service/media-fixtures.ts';
import { collect, textOf } from '../service/harness.ts';
import { depsFor, lastBody } from './harness.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
afterEach(() => emu.reset());

const user = (content: string) => [{ role: 'user' as const, content }];
const clock: FunctionTool = {
  type: 'function',
  function: { name: 'get_time', description: 'Current time', parameters: { type: 'object', properties: {} } },
};

describe('chat', () => {
  it('turns thinking off with thinking: disabled and returns reasoning separately when on', async () => {
    const deps = depsFor(emu, { WEB_SEARCH: 'off' });
    const on = await collect(chat(deps, { messages: user('hello') }));
    expect(lastBody(emu).thinking).toBeUndefined();
    expect(textOf(on)).toBe('Echo: hello');
    expect(textOf(on, 'reasoning')).toContain('hello');

    const off = await collect(chat(deps, { messages: user('hello'), thinking: false }));
    expect(lastBody(emu).thinking).toEqual({ type: 'disabled' });
    expect(off.some((d) => d.type === 'reasoning')).toBe(false);
    await deps.client.close();
  });

  it('builds the web_search tool from config: none when off, force_search only when forced', async () => {
    const deps = depsFor(emu, {
      WEB_SEARCH: 'auto',
      WEB_SEARCH_MAX_KEYWORD: '2',
      WEB_SEARCH_LIMIT: '4',
      WEB_SEARCH_CITY: 'Lyon',
      WEB_SEARCH_COUNTRY: 'FR',
    });
    await chat(deps, { messages: user('hello') }).finalResult();
    expect(lastBody(emu).tools).toEqual([
      { type: 'web_search', max_keyword: 2, force_search: false, limit: 4, user_location: { type: 'approximate', country: 'FR', city: 'Lyon' } },
    ]);
    expect(lastBody(emu).tool_choice).toBe('auto');

    await chat(deps, { messages: user('hello'), webSearch: 'off' }).finalResult();
    expect(lastBody(emu).tools).toBeUndefined();

    const forced = await chat(deps, { messages: user('comets'), webSearch: 'force' }).finalResult();
    expect(lastBody(emu).tools[0].force_search).toBe(true);
    expect(forced.citations.map((c) => c.index)).toEqual([1, 2, 3, 4]);
    expect(forced.content).toContain('confirmed again in [1].');
    expect(forced.content).toContain('(Searched near Lyon, FR.)');
    expect(forced.usage.webSearch.pageUsage).toBe(4);
    await deps.client.close();
  });

  it('sends function tools together with web search, and the system prompt first', async () => {
    const deps = depsFor(emu);
    const result = await chat(deps, { messages: user('what time is it'), tools: [clock], system: 'You are Herald.' }).finalResult();
    const body = lastBody(emu);
    expect(body.tools.map((t: { type: string }) => t.type)).toEqual(['web_search', 'function']);
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are Herald.' });
    expect(result.toolCalls.map((c) => c.function.name)).toEqual(['get_time']);
    expect(result.finishReason).toBe('tool_calls');
    await deps.client.close();
  });

  describe('with API_FORMAT=messages', () => {
    it('sends plain text and images to the messages endpoint, system as a top-level string', async () => {
      const deps = depsFor(emu, { API_FORMAT: 'messages', WEB_SEARCH: 'off', CHAT_MODEL: 'svc-v2.5' });
      const png = await imageBytes('png', 40, 30);
      const messages = [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: 'first' },
        { role: 'assistant' as const, content: 'ok' },
        {
          role: 'user' as const,
          content: [
            { type: 'image_url' as const, image_url: { url: dataUrl('image/png', png) } },
            { type: 'text' as const, text: 'what is this' },
          ],
        },
      ];
      const result = await chat(deps, { messages, system: 'You are Herald.', thinking: false }).finalResult();
      const request = emu.requests.at(-1)!;
      expect(request.path).toBe('/anthropic/v1/messages');
      expect(request.body).toMatchObject({
        model: 'svc-v2.5',
        system: 'You are Herald.\n\nBe brief.',
        max_tokens: 4096,
        thinking: { type: 'disabled' },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'first' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
              { type: 'text', text: 'what is this' },
            ],
          },
        ],
      });
      expect(result.content).toContain('Image 1: image/png 40x30');
      await deps.client.close();
    });

    it('routes requests needing web search or function tools to chat completions', async () => {
      const deps = depsFor(emu, { API_FORMAT: 'messages', WEB_SEARCH: 'auto' });
      await chat(deps, { messages: user('hello') }).finalResult();
      expect(emu.requests.at(-1)!.path).toBe('/v1/chat/completions');
      await chat(deps, { messages: user('hello'), webSearch: 'off', tools: [clock] }).finalResult();
      expect(emu.requests.at(-1)!.path).toBe('/v1/chat/completions');
      await chat(deps, { messages: user('hello'), webSearch: 'off' }).finalResult();
      expect(emu.requests.at(-1)!.path).toBe('/anthropic/v1/messages');
      await deps.client.close();
    });
  });
});
