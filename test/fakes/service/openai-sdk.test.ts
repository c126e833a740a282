import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from './emulator.ts';
import type { Emulator } from './emulator.ts';

let emu: Emulator;
let client: OpenAI;
beforeAll(async () => {
  emu = await startEmulator();
  client = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 0 });
});
afterAll(() => emu.close());

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

describe('the official openai SDK against the emulator', () => {
  it('reads a completion, sending the key as a bearer token', async () => {
    const completion = await client.chat.completions.create({ model: 'svc-v2.5-pro', messages: [{ role: 'user', content: 'Hi SDK' }] });
    expect(completion.choices[0]!.message.content).toBe('Echo: Hi SDK');
    expect((completion.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toContain('Hi SDK');
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    expect(emu.requests.at(-1)!.headers.authorization).toBe(`Bearer ${emu.apiKey}`);
  });

  it('iterates a stream to the same text and the usage chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'svc-v2-flash', stream: true, messages: [{ role: 'user', content: 'unicode' }] });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    const plain = await client.chat.completions.create({ model: 'svc-v2-flash', messages: [{ role: 'user', content: 'unicode' }] });
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(usage!.completion_tokens).toBe(plain.usage!.completion_tokens);
  });

  it('assembles streamed parallel tool calls with the stream helper, then sends results back', async () => {
    const runner = client.chat.completions.stream({
      model: 'svc-v2.5-pro',
      tools,
      tool_choice: 'auto',
      messages: [{ role: 'user', content: 'call get_weather {"city":"Lima"} call get_weather {"city":"Quito"}' }],
    });
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls!.map((c) => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([{ city: 'Lima' }, { city: 'Quito' }]);

    const answer = await client.chat.completions.create({
      model: 'svc-v2.5-pro',
      tools,
      messages: [
        { role: 'user', content: 'weather in Lima and Quito' },
        message as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam,
        ...message.tool_calls!.map((c, i) => ({ role: 'tool' as const, tool_call_id: c.id, content: i === 0 ? 'warm' : 'cool' })),
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('Tool results:\n- get_weather: warm\n- get_weather: cool');
  });

  it('surfaces emulated errors as the SDK error classes and honours Retry-After', async () => {
    emu.faults.push({ status: 429, retryAfter: 1 });
    await expect(client.chat.completions.create({ model: 'svc-v2-flash', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.RateLimitError,
    );
    const badKey = new OpenAI({ apiKey: 'wrong', baseURL: `${emu.url}/v1`, maxRetries: 0 });
    await expect(badKey.chat.completions.create({ model: 'svc-v2-flash', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );

    emu.faults.push({ status: 503, retryAfter: 1 });
    const retrying = new OpenAI({ apiKey: emu.apiKey, baseURL: `${emu.url}/v1`, maxRetries: 1 });
    const started = Date.now();
    const completion = await retrying.chat.completions.create({ model: 'svc-v2-flash', messages: [{ role: 'user', content: 'again' }] });
    expect(completion.choices[0]!.message.content).toBe('Echo: again');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });
});
