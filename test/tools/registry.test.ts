import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/tools/builtin-tools.ts';
import { MAX_RESULT_CHARS, ToolRegistry } from '../../src/tools/registry.ts';
import { defineTool } from '../../src/tools/types.ts';
import type { ToolCall } from '../../src/service/types.ts';
import { memoryWorkspace, workspaceMessage } from '../helpers/memory-workspace.ts';
import { toolContext } from './context.ts';

function call(name: string, args: string): ToolCall {
  return { id: `call_${name}`, type: 'function', function: { name, arguments: args } };
}

const echo = defineTool<{ text: string; times?: number }>({
  name: 'echo',
  description: 'Repeats text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' }, times: { type: 'integer' }, mode: { type: 'string', enum: ['loud', 'quiet'] } },
    required: ['text'],
  },
  handler: ({ text, times }) => text.repeat(times ?? 1),
});

describe('ToolRegistry', () => {
  it('runs a tool that needs approval only once the asker approves, and tells the model otherwise', async () => {
    const runs: string[] = [];
    const guarded = defineTool<{ text: string }>({
      name: 'post',
      title: 'tracker · post',
      description: 'Posts text.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      needsApproval: ({ text }) => text !== 'safe',
      handler: ({ text }) => {
        runs.push(text);
        return `posted ${text}`;
      },
    });
    const registry = new ToolRegistry([guarded]);
    const asked: unknown[] = [];
    const answering = (outcome: 'approved' | 'denied' | 'expired') =>
      toolContext({
        approve: async (request) => {
          asked.push(request);
          return outcome;
        },
      });
    expect((await registry.execute(call('post', '{"text":"a"}'), answering('approved'))).content).toBe('posted a');
    expect(asked).toEqual([{ title: 'tracker · post', args: { text: 'a' } }]);
    expect(await registry.execute(call('post', '{"text":"b"}'), answering('denied'))).toMatchObject({
      ok: false,
      content: 'The asker denied this call. It was not run.',
    });
    expect((await registry.execute(call('post', '{"text":"c"}'), answering('expired'))).content).toMatch(/did not approve this call in time/);
    expect((await registry.execute(call('post', '{"text":"d"}'), toolContext())).content).toMatch(/no way to ask for it here/);
    expect((await registry.execute(call('post', '{"text":"safe"}'), toolContext())).content).toBe('posted safe');
    expect(runs).toEqual(['a', 'safe']);
  });

  it('runs a tool and returns its text for the model', async () => {
    const registry = new ToolRegistry([echo]);
    const result = await registry.execute(call('echo', '{"text":"ab","times":2}'), toolContext());
    expect(result).toMatchObject({ callId: 'call_echo', name: 'echo', content: 'abab', ok: true });
  });

  it('feeds invalid JSON, schema violations and unknown tools back as readable errors', async () => {
    const registry = new ToolRegistry([echo]);
    const context = toolContext();
    expect((await registry.execute(call('echo', '{"text": "a"'), context)).content).toMatch(/^Error: the arguments are not valid JSON/);
    expect((await registry.execute(call('echo', '{}'), context)).content).toBe('Error: invalid arguments: arguments.text is required.');
    expect((await registry.execute(call('echo', '{"text":1,"times":1.5,"mode":"x"}'), context)).content).toBe(
      'Error: invalid arguments: arguments.text must be a string, got integer; arguments.times must be an integer, got number; arguments.mode must be one of "loud", "quiet".',
    );
    expect((await registry.execute(call('echo', '[1]'), context)).content).toMatch(/arguments must be a object, got array/);
    const unknown = await registry.execute(call('rm_rf', '{}'), context);
    expect(unknown).toMatchObject({ ok: false, content: 'Error: there is no tool named "rm_rf". Available tools: echo.' });
  });

  it('turns a thrown error or a timeout into an error result instead of failing the reply', async () => {
    const registry = new ToolRegistry(
      [
        defineTool({
          name: 'boom',
          description: 'fails',
          parameters: { type: 'object', properties: {} },
          handler: () => {
            throw new Error('disk on fire');
          },
        }),
        defineTool({
          name: 'slow',
          description: 'hangs',
          parameters: { type: 'object', properties: {} },
          handler: async (_args, ctx) => {
            await sleep(5000, undefined, { signal: ctx.signal });
            return 'late';
          },
        }),
      ],
      { timeoutMs: 50 },
    );
    expect(await registry.execute(call('boom', '{}'), toolContext())).toMatchObject({ ok: false, content: 'Error: disk on fire' });
    const started = Date.now();
    expect(await registry.execute(call('slow', ''), toolContext())).toMatchObject({
      ok: false,
      content: 'Error: the tool did not finish within 0 s.',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('cuts a huge result so it cannot flood the context', async () => {
    const registry = new ToolRegistry([echo]);
    const result = await registry.execute(call('echo', JSON.stringify({ text: 'x', times: MAX_RESULT_CHARS + 500 })), toolContext());
    expect(result.content).toHaveLength(MAX_RESULT_CHARS + '\n[… 500 more characters cut]'.length);
  });

  it('refuses bad definitions and duplicate names', () => {
    const registry = new ToolRegistry([echo]);
    expect(() => registry.register(echo)).toThrow(/already registered/);
    expect(() => registry.register({ ...echo, name: 'has space' })).toThrow(/must be 1-64 letters/);
    expect(() => registry.register({ ...echo, name: 'x', parameters: { type: 'string' } as never })).toThrow(/type "object"/);
  });
});

describe('built-in tools', () => {
  const registry = new ToolRegistry(builtinTools);

  it('offers search_messages only where the adapter reads the workspace; an empty query lists the latest messages, cited', async () => {
    const names = (ctx: ReturnType<typeof toolContext>) => registry.definitions(ctx).map((d) => d.function.name);
    expect(names(toolContext())).toEqual(['current_time', 'calculate', 'roll_dice', 'pick_random']);
    const workspace = memoryWorkspace({
      general: [workspaceMessage('general', 1, 'lunch?'), workspaceMessage('general', 2, 'Pizza.', { author: 'Herald', isBot: true })],
    });
    const withHistory = toolContext({ workspace });
    expect(names(withHistory)).toContain('search_messages');
    const result = await registry.execute(call('search_messages', '{"limit":5}'), withHistory);
    expect(result.content).toBe(
      'The latest messages, newest first:\n[1] 2025-01-14, 10:02 · #general · Herald (bot): Pizza.\n[2] 2025-01-14, 10:01 · #general · Bob: lunch?',
    );
    expect(result.citations.map((c) => [c.index, c.url, c.message?.author])).toEqual([
      [1, 'https://chat.example/general/2', 'Herald'],
      [2, 'https://chat.example/general/1', 'Bob'],
    ]);
    expect((await registry.execute(call('search_messages', '{}'), toolContext())).content).toMatch(/no tool named/);
  });

  it('current_time answers in the bot time zone or the one asked for', async () => {
    const local = JSON.parse((await registry.execute(call('current_time', '{}'), toolContext())).content);
    expect(local).toEqual({ timezone: 'Europe/Berlin', local: 'Wednesday, January 15, 2025 at 00:30:00 GMT+01:00', utc: '2025-01-14T23:30:00.000Z' });
    const tokyo = JSON.parse((await registry.execute(call('current_time', '{"timezone":"Asia/Tokyo"}'), toolContext())).content);
    expect(tokyo.local).toBe('Wednesday, January 15, 2025 at 08:30:00 GMT+09:00');
    expect((await registry.execute(call('current_time', '{"timezone":"Mars/Base"}'), toolContext())).content).toMatch(
      /unknown time zone "Mars\/Base"/,
    );
  });

  it('calculate answers with the value or a reason', async () => {
    expect((await registry.execute(call('calculate', '{"expression":"(3+4)^2"}'), toolContext())).content).toBe('(3+4)^2 = 49');
    expect((await registry.execute(call('calculate', '{"expression":"process.exit()"}'), toolContext())).content).toBe(
      'Error: cannot evaluate "process.exit()": unexpected character "." (at character 8)',
    );
  });

  it('roll_dice and pick_random return structured results', async () => {
    const roll = JSON.parse((await registry.execute(call('roll_dice', '{"notation":"2d6+1"}'), toolContext())).content);
    expect(roll.total).toBe(roll.rolls['2d6'][0] + roll.rolls['2d6'][1] + 1);
    const pick = JSON.parse((await registry.execute(call('pick_random', '{"options":["tea","coffee"]}'), toolContext())).content);
    expect(['tea', 'coffee']).toContain(pick.picked[0]);
  });
});
