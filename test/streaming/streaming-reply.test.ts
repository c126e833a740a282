import { describe, expect, it } from 'vitest';
import { StreamingReply } from '../../src/streaming/streaming-reply.ts';
import type { ReplySurface } from '../../src/streaming/surface.ts';

interface Call {
  op: 'open' | 'update' | 'close';
  handle: string;
  text: string;
}

function fakeSurface(mode: 'edit' | 'append', maxLength = 2000, delay = 0) {
  const calls: Call[] = [];
  const messages = new Map<string, string>();
  let next = 0;
  const surface: ReplySurface = {
    mode,
    maxLength,
    async open(text) {
      const handle = `m${++next}`;
      calls.push({ op: 'open', handle, text });
      messages.set(handle, text);
      return handle;
    },
    async update(handle, text) {
      calls.push({ op: 'update', handle, text });
      messages.set(handle, mode === 'edit' ? text : messages.get(handle)! + text);
    },
    async close(handle, text) {
      calls.push({ op: 'close', handle, text });
      messages.set(handle, mode === 'edit' ? text : messages.get(handle)! + text);
    },
    delayMs: () => delay,
  };
  return { surface, calls, messages };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('StreamingReply', () => {
  it('posts the first text at once and ends with the complete text', async () => {
    const { surface, calls, messages } = fakeSurface('edit');
    const reply = new StreamingReply(surface);
    reply.append('Hel');
    await tick();
    expect(calls[0]).toEqual({ op: 'open', handle: 'm1', text: 'Hel' });
    reply.append('lo, ');
    reply.append('world');
    const handles = await reply.finish();
    expect(handles).toEqual(['m1']);
    expect(messages.get('m1')).toBe('Hello, world');
    expect(calls.at(-1)!.op).toBe('close');
  });

  it("finishes without waiting out Herald's own pacing, but waits what the platform asks before the last edit", async () => {
    const { surface, calls, messages } = fakeSurface('edit');
    const waits: number[] = [];
    // Herald's own pacing never ends by itself here: only finish() can cut it short.
    const sleep = (ms: number) => {
      waits.push(ms);
      return ms === 1000 ? new Promise<void>(() => {}) : Promise.resolve();
    };
    let platformDelay = 0;
    surface.delayMs = () => platformDelay;
    const reply = new StreamingReply(surface, { minIntervalMs: 1000, sleep });
    reply.append('Hello');
    await tick();
    expect(waits).toEqual([1000]);
    reply.append(', world');
    platformDelay = 30;
    expect(await reply.finish()).toEqual(['m1']);
    expect(messages.get('m1')).toBe('Hello, world');
    expect(waits).toEqual([1000, 30]);
    expect(calls.map((c) => c.op)).toEqual(['open', 'close']);
  });

  it('coalesces deltas that arrive while an update is paced', async () => {
    const { surface, calls, messages } = fakeSurface('edit', 2000, 40);
    const reply = new StreamingReply(surface);
    for (let i = 0; i < 200; i++) {
      reply.append(`${i} `);
      if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await reply.finish();
    expect(calls.length).toBeLessThan(20);
    expect(messages.get('m1')).toBe(
      `${Array.from({ length: 200 }, (_, i) => `${i} `)
        .join('')
        .trimEnd()} `,
    );
  });

  it('continues a long answer in further messages, each within the limit and markdown-safe', async () => {
    const { surface, messages } = fakeSurface('edit', 300);
    const reply = new StreamingReply(surface);
    const code = Array.from({ length: 120 }, (_, i) => `line ${i}`).join('\n');
    const text = `Intro paragraph.\n\n\`\`\`txt\n${code}\n\`\`\`\nOutro.`;
    for (const ch of text.match(/[\s\S]{1,7}/g)!) reply.append(ch);
    const handles = await reply.finish();
    expect(handles.length).toBeGreaterThan(2);
    const shown = handles.map((h) => messages.get(h)!);
    for (const part of shown) {
      expect(part.length).toBeLessThanOrEqual(300);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const codeLines = shown
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('line '));
    expect(codeLines).toEqual(code.split('\n'));
    expect(shown.at(-1)!.endsWith('Outro.')).toBe(true);
    expect(reply.text).toBe(text);
  });

  it.each(['edit', 'append'] as const)('keeps text that arrives while a %s surface is busy splitting', async (mode) => {
    const { surface, messages } = fakeSurface(mode, 100);
    const slow = (call: (handle: string, text: string) => Promise<unknown>) => async (handle: string, text: string) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await call(handle, text);
    };
    const open = surface.open;
    surface.open = async (text) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return open(text);
    };
    surface.update = slow(surface.update);
    surface.close = slow(surface.close);
    const reply = new StreamingReply(surface);
    const words = Array.from({ length: 600 }, (_, i) => `w${i}`);
    for (const [i, word] of words.entries()) {
      reply.append(`${word} `);
      if (i % 25 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const handles = await reply.finish();
    const shown = handles
      .map((h) => messages.get(h)!)
      .join(' ')
      .split(/\s+/)
      .filter(Boolean);
    expect(shown).toEqual(words);
  });

  it('shows an unfinished code block closed while streaming', async () => {
    const { surface, calls } = fakeSurface('edit');
    const reply = new StreamingReply(surface);
    reply.append('```js\nlet a');
    await tick();
    expect(calls[0]!.text).toBe('```js\nlet a\n```');
    reply.append(' = 1;\n```');
    await reply.finish();
    expect(calls.at(-1)!.text).toBe('```js\nlet a = 1;\n```');
  });

  it('only ever appends on a native stream, and never resends text', async () => {
    const { surface, calls, messages } = fakeSurface('append', 100);
    const reply = new StreamingReply(surface);
    const words = Array.from({ length: 60 }, (_, i) => `w${i}`);
    for (const w of words) {
      reply.append(`${w} `);
      await tick();
    }
    const handles = await reply.finish();
    expect(handles.length).toBeGreaterThan(1);
    for (const h of handles) expect(messages.get(h)!.length).toBeLessThanOrEqual(100);
    expect(
      handles
        .map((h) => messages.get(h)!)
        .join(' ')
        .split(/\s+/)
        .filter(Boolean),
    ).toEqual(words);
    expect(calls.filter((c) => c.op === 'close').length).toBe(handles.length);
  });

  it('reports a platform failure from finish()', async () => {
    const { surface } = fakeSurface('edit');
    surface.update = surface.close = async () => {
      throw new Error('Missing Access');
    };
    const reply = new StreamingReply(surface);
    reply.append('a');
    await tick();
    reply.append('b');
    await expect(reply.finish()).rejects.toThrow('Missing Access');
  });

  it('abandon() sends nothing more and does not wait out the pacing (a minute here)', async () => {
    const { surface, calls, messages } = fakeSurface('edit', 2000, 60_000);
    const reply = new StreamingReply(surface);
    reply.append('first');
    await tick();
    reply.append(' second');
    expect(await reply.abandon()).toEqual(['m1']);
    expect(calls.map((c) => c.op)).toEqual(['open']);
    expect(messages.get('m1')).toBe('first');
  });

  it('carries what a message did not take into the next one, on an update and on the last close', async () => {
    const { surface, messages } = fakeSurface('append');
    // A platform whose real limit depends on more than the text: each message holds at most 12 characters. What a
    // new message does not take is handed back on the next call to it.
    const room = 12;
    const untaken = new Map<string, string>();
    const take = (handle: string, text: string) => {
      const now = messages.get(handle) ?? '';
      const landed = text.slice(0, Math.max(0, room - now.length));
      messages.set(handle, now + landed);
      return landed.length < text.length ? text.slice(landed.length) : '';
    };
    const more = (handle: string, text: string) => {
      const waiting = untaken.get(handle) ?? '';
      untaken.delete(handle);
      const rest = waiting !== '' ? waiting + text : take(handle, text);
      return rest === '' ? undefined : { rest };
    };
    let next = 0;
    surface.open = async (text) => {
      const handle = `m${++next}`;
      untaken.set(handle, take(handle, text));
      return handle;
    };
    surface.update = async (handle, text) => more(handle, text);
    surface.close = async (handle, text) => more(handle, text);
    const reply = new StreamingReply(surface);
    reply.append('one two ');
    await tick();
    reply.append('three four ');
    await tick();
    reply.append('five six seven eight');
    const handles = await reply.finish();
    expect(handles.map((h) => messages.get(h)).join('')).toBe('one two three four five six seven eight');
    expect(handles.length).toBeGreaterThan(2);
    for (const handle of handles) expect(messages.get(handle)!.length).toBeLessThanOrEqual(room);
  });
});
