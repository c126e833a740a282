import { describe, expect, it } from 'vitest';
import type { ReplyEvent } from '../../src/conversation/types.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import type { ReplySurface } from '../../src/streaming/surface.ts';

function editSurface() {
  const messages = new Map<string, string>();
  let n = 0;
  const surface: ReplySurface = {
    mode: 'edit',
    maxLength: 2000,
    open: async (text) => {
      const id = `m${++n}`;
      messages.set(id, text);
      return id;
    },
    update: async (id, text) => void messages.set(id, text),
    close: async (id, text) => void messages.set(id, text),
    delayMs: () => 0,
  };
  return { surface, messages };
}

async function* events(list: ReplyEvent[], failAfter?: number) {
  let i = 0;
  for (const event of list) {
    if (failAfter !== undefined && i++ === failAfter) throw new Error('boom');
    yield event;
  }
}

const usage = {
  serviceCalls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2, reasoningTokens: 0, cachedTokens: 0,
  imageTokens: 0, audioTokens: 0, audioSeconds: 0, webSearchCalls: 0, webPages: 0,
};

describe('renderReply', () => {
  it('shows the transcript first, then the answer, then notices; collects citations and reasoning', async () => {
    const { surface, messages } = editSurface();
    const phases: string[] = [];
    const result = await renderReply(
      events([
        { type: 'status', phase: 'transcribing', text: 'transcribing…' },
        { type: 'transcript', name: 'voice-message.ogg', text: 'what is the weather' },
        { type: 'status', phase: 'thinking', text: 'thinking…' },
        { type: 'status', phase: 'thinking', text: 'thinking…' },
        { type: 'reasoning', delta: 'The user asks…' },
        { type: 'citations', citations: [{ index: 1, url: 'https://a.example', title: 'A' }] },
        { type: 'text', delta: 'Sunny [1].' },
        { type: 'notice', code: 'history_trimmed', text: 'Earlier messages were trimmed.' },
        { type: 'done', usage },
      ]),
      surface,
      { status: (phase) => void phases.push(phase) },
    );
    expect(phases).toEqual(['transcribing', 'thinking']);
    expect(messages.get('m1')).toBe('🎙️ **voice-message.ogg**\n> what is the weather\n\nSunny [1].\n\n_Earlier messages were trimmed._');
    expect(result.citations).toHaveLength(1);
    expect(result.reasoning).toBe('The user asks…');
    expect(result.usage).toEqual(usage);
  });

  it("keeps a notice in italics whole when it names a file with underscores or asterisks", async () => {
    const { surface, messages } = editSurface();
    await renderReply(
      events([
        { type: 'text', delta: 'Answered.' },
        { type: 'notice', code: 'file_skipped', text: 'I skipped "my_backup*.zip": I can read text files.' },
        { type: 'done', usage },
      ]),
      surface,
    );
    expect(messages.get('m1')).toBe('Answered.\n\n_I skipped "my\\_backup\\*.zip": I can read text files._');
  });

  it('ends a half-written answer with a short error line when the stream fails', async () => {
    const { surface, messages } = editSurface();
    const failures: unknown[] = [];
    const result = await renderReply(
      events([{ type: 'text', delta: 'Partial answer' }, { type: 'text', delta: ' more' }], 1),
      surface,
      { failed: (e) => void failures.push(e) },
    );
    expect(messages.get('m1')).toBe('Partial answer\n\n⚠️ Something went wrong while answering; please try again.');
    expect(result.error?.code).toBe('internal');
    expect(failures).toHaveLength(1);
  });

  it('posts a service error on its own when no text came', async () => {
    const { surface, messages } = editSurface();
    const result = await renderReply(
      events([{ type: 'error', code: 'rate_limited', message: 'Slow down — try again in 42 s.', retryAfterMs: 42_000 }, { type: 'done', usage }]),
      surface,
    );
    expect([...messages.values()]).toEqual(['⚠️ Slow down — try again in 42 s.']);
    expect(result.error?.retryAfterMs).toBe(42_000);
  });

  it('says so when the answer is empty', async () => {
    const { surface, messages } = editSurface();
    await renderReply(events([{ type: 'done', usage }]), surface, {}, { emptyText: '(no answer)' });
    expect([...messages.values()]).toEqual(['(no answer)']);
  });
});
