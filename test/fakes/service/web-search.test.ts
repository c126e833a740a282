import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { chatChunks, post, postChat, streamedText } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

const search = (extra: object = {}) => ({
  type: 'web_search',
  max_keyword: 2,
  force_search: false,
  limit: 4,
  user_location: { type: 'approximate', country: 'NZ', region: 'Otago', city: 'Dunedin' },
  ...extra,
});
const ask = (content: string, tool: object, extra: object = {}) => ({
  model: 'svc-v2.5-pro',
  tools: [tool],
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('web search', () => {
  it('cites sources with a duplicate URL and counts searches and pages', async () => {
    const body = await postChat(emu, ask('latest rugby results in Dunedin', search()));
    const message = body.choices[0].message;
    expect(message.annotations).toHaveLength(5);
    for (const a of message.annotations) {
      expect(Object.keys(a).sort()).toEqual(['logo_url', 'publish_time', 'site_name', 'summary', 'title', 'type', 'url']);
      expect(a.type).toBe('url_citation');
      expect(a.publish_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    }
    const urls = message.annotations.map((a: any) => a.url);
    expect(new Set(urls).size).toBe(4);
    expect(urls[4]).toBe(urls[0]);
    for (const n of [1, 2, 3, 4, 5]) expect(message.content).toContain(`[${n}]`);
    expect(message.content).toContain('Searched near Dunedin, Otago, NZ');
    expect(body.usage.web_search_usage).toEqual({ tool_usage: 2, page_usage: 4 });
  });

  it('searches without fresh-info words only when forced', async () => {
    const unforced = await postChat(emu, ask('tell me about otters', search()));
    expect(unforced.choices[0].message.annotations).toBeUndefined();
    expect(unforced.usage.web_search_usage).toBeUndefined();
    const forced = await postChat(emu, ask('tell me about otters', search({ force_search: true })));
    expect(forced.choices[0].message.annotations.length).toBeGreaterThan(1);
  });

  it('sends every source in the first stream chunk, before reasoning and text', async () => {
    const { chunks } = await chatChunks(await post(emu, '/v1/chat/completions', ask('search for the news today', search(), { stream: true })));
    expect(chunks[0].choices[0].delta.annotations).toHaveLength(5);
    expect(chunks.slice(1).some((c) => c.choices[0]?.delta.annotations)).toBe(false);
    expect(chunks[1].choices[0].delta.reasoning_content).toBeTruthy();
    expect(streamedText(chunks)).toMatch(/\[1\].*\[5\]/s);
    expect(chunks.at(-1)!.usage.web_search_usage).toEqual({ tool_usage: 2, page_usage: 4 });
  });

  it('lets an explicitly requested function tool take priority over searching', async () => {
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };
    const body = await postChat(emu, {
      model: 'svc-v2-flash',
      tools: [search({ force_search: true }), weather],
      messages: [{ role: 'user', content: 'call get_weather {} for the news' }],
    });
    expect(body.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
    expect(body.choices[0].message.annotations).toBeUndefined();
  });
});
