import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';
import { chatChunks, post, postChat } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_current_time',
      description: 'Time',
      parameters: { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'] },
    },
  },
];
const request = (content: string, extra: object = {}) => ({
  model: 'svc-v2.5-pro',
  tools,
  tool_choice: 'auto',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('tool calling', () => {
  it('calls the named tool with the given arguments, with reasoning in thinking mode', async () => {
    const body = await postChat(emu, request('please call get_weather {"city": "Paris"} now'));
    const choice = body.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.reasoning_content).toContain('get_weather');
    expect(choice.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
    ]);
  });

  it('makes parallel calls with distinct ids', async () => {
    const body = await postChat(
      emu,
      request('call get_weather {"city":"Oslo"} and call get_current_time {"zone":"CET"}', { thinking: { type: 'disabled' } }),
    );
    const calls = body.choices[0].message.tool_calls;
    expect(calls.map((c: any) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_weather', { city: 'Oslo' }],
      ['get_current_time', { zone: 'CET' }],
    ]);
    expect(calls[0].id).not.toBe(calls[1].id);
    expect(body.choices[0].message).not.toHaveProperty('reasoning_content');
  });

  it('calls a tool whose name words appear in a natural question, with placeholder arguments', async () => {
    const calls = (await postChat(emu, request('What time is it?'))).choices[0].message.tool_calls;
    expect(calls.map((c: any) => [c.function.name, c.function.arguments])).toEqual([['get_current_time', '{"zone":"UTC"}']]);
  });

  it('passes invalid argument JSON through verbatim', async () => {
    const calls = (await postChat(emu, request('call get_weather {"city": Paris'))).choices[0].message.tool_calls;
    expect(calls[0].function.arguments).toBe('{"city": Paris');
  });

  it('does not call undeclared tools, nor any tool with tool_choice none', async () => {
    expect((await postChat(emu, request('call launch_rockets {}'))).choices[0].message.tool_calls).toBeNull();
    expect((await postChat(emu, request('what time is it', { tool_choice: 'none' }))).choices[0].message.content).toBe('Echo: what time is it');
  });

  it('answers with the tool results and records whether earlier reasoning was kept', async () => {
    const first = await postChat(emu, request('call get_weather {"city":"Rome"} and call get_current_time {"zone":"UTC"}'));
    const assistant = first.choices[0].message;
    const results = [
      { role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'sunny, 24 °C' },
      { role: 'tool', tool_call_id: assistant.tool_calls[1].id, content: '12:00' },
    ];
    const messages = [{ role: 'user', content: 'weather and time' }, assistant, ...results];
    const final = await postChat(emu, { model: 'svc-v2.5-pro', tools, messages });
    expect(final.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { content: 'Tool results:\n- get_weather: sunny, 24 °C\n- get_current_time: 12:00' },
    });
    expect(emu.requests.at(-1)!.reasoningKept).toBe(true);

    const { reasoning_content: _dropped, ...withoutReasoning } = assistant;
    await postChat(emu, { model: 'svc-v2.5-pro', tools, messages: [messages[0], withoutReasoning, ...results] });
    expect(emu.requests.at(-1)!.reasoningKept).toBe(false);
  });

  it('streams tool calls as argument fragments, id and name only in the first', async () => {
    const response = await post(
      emu,
      '/v1/chat/completions',
      request('call get_weather {"city": "Buenos Aires"} call get_current_time {"zone":"UTC"}', { stream: true }),
    );
    const { chunks, done } = await chatChunks(response);
    expect(done).toBe(true);
    const fragments = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    for (const index of [0, 1]) {
      const mine = fragments.filter((f: any) => f.index === index);
      expect(mine.length).toBeGreaterThan(2);
      expect(mine[0]).toMatchObject({ id: expect.stringMatching(/^call_/), type: 'function', function: { arguments: '' } });
      expect(mine.slice(1).every((f: any) => f.id === undefined && f.function.name === undefined)).toBe(true);
    }
    const args = (index: number) =>
      fragments
        .filter((f: any) => f.index === index)
        .map((f: any) => f.function.arguments)
        .join('');
    expect(args(0)).toBe('{"city": "Buenos Aires"}');
    expect(JSON.parse(args(1))).toEqual({ zone: 'UTC' });
    const reasoningAt = chunks.findIndex((c) => c.choices[0]?.delta.reasoning_content);
    const firstCallAt = chunks.findIndex((c) => c.choices[0]?.delta.tool_calls);
    expect(reasoningAt).toBeGreaterThan(-1);
    expect(reasoningAt).toBeLessThan(firstCallAt);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0].finish_reason).toBe('tool_calls');
  });
});
