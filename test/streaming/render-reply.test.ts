import { describe, expect, it } from 'vitest';
import { ReplyChannel } from '../../src/conversation/reply-channel.ts';
import type { ReplyEvent } from '../../src/conversation/types.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError, type ReplySurface } from '../../src/streaming/surface.ts';

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
  serviceCalls: 1,
  promptTokens: 1,
  completionTokens: 1,
  totalTokens: 2,
  reasoningTokens: 0,
  cachedTokens: 0,
  imageTokens: 0,
  audioTokens: 0,
  audioSeconds: 0,
  webSearchCalls: 0,
  webPages: 0,
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

  it('keeps a notice in italics whole when it names a file with underscores or asterisks', async () => {
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
      events(
        [
          { type: 'text', delta: 'Partial answer' },
          { type: 'text', delta: ' more' },
        ],
        1,
      ),
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
      events([
        { type: 'error', code: 'rate_limited', message: 'Slow down — try again in 42 s.', retryAfterMs: 42_000 },
        { type: 'done', usage },
      ]),
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

  describe('when a message of the reply is deleted', () => {
    /** An edit surface whose messages can be deleted: writing to one then fails as the platform says so. */
    function deletableSurface() {
      const { surface, messages } = editSurface();
      const deleted = new Set<string>();
      const calls: string[] = [];
      const guard = (op: 'update' | 'close') => {
        const write = surface[op];
        surface[op] = async (id, text) => {
          calls.push(`${op} ${id}`);
          if (deleted.has(id)) throw new MessageGoneError(id);
          await write(id, text);
        };
      };
      guard('update');
      guard('close');
      return { surface, messages, deleted, calls };
    }

    const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

    it('stops at once: the stream is cancelled, nothing more is written, and no error line is added', async () => {
      const { surface, messages, deleted, calls } = deletableSurface();
      let cancelled = 0;
      const channel = new ReplyChannel(() => cancelled++);
      const failures: unknown[] = [];
      const rendering = renderReply(channel, surface, { failed: (e) => void failures.push(e) }, { emptyText: '(no answer)' });
      channel.push({ type: 'text', delta: 'The first words' });
      await settle();
      deleted.add('m1');
      channel.push({ type: 'text', delta: ' and more' });
      const result = await rendering;
      const callsAtStop = calls.length;
      channel.push({ type: 'text', delta: ' that nobody reads' });
      channel.push({ type: 'done', usage });
      channel.end();
      await settle();

      expect(result.stopped).toBe('deleted');
      expect(cancelled).toBe(1);
      expect(result.error).toBeUndefined();
      expect(failures).toEqual([]);
      expect(result.messages).toEqual(['m1']);
      expect(messages.get('m1')).toBe('The first words');
      expect(calls.length).toBe(callsAtStop);
      expect(calls.at(-1)).toBe('update m1');
    });

    it('stops without waiting for the next event, even while the service is silent', async () => {
      const { surface, deleted } = deletableSurface();
      const channel = new ReplyChannel(() => {});
      const rendering = renderReply(channel, surface);
      channel.push({ type: 'text', delta: 'Thinking aloud' });
      await settle();
      deleted.add('m1');
      channel.push({ type: 'text', delta: ', then nothing for a long while' });
      await expect(rendering).resolves.toMatchObject({ stopped: 'deleted' });
    });

    it('a deletion found only by the last edit ends the reply the same way', async () => {
      const { surface, deleted } = deletableSurface();
      const slowFirst = { ...surface, delayMs: () => 50 };
      const channel = new ReplyChannel(() => {});
      const rendering = renderReply(channel, slowFirst);
      channel.push({ type: 'text', delta: 'Short' });
      await settle();
      deleted.add('m1');
      channel.push({ type: 'text', delta: ' answer.' });
      channel.push({ type: 'done', usage });
      channel.end();
      const result = await rendering;
      expect(result.stopped).toBe('deleted');
      expect(result.error).toBeUndefined();
    });

    it('the signal stops it too, leaving the messages as they are; its reason says whether a message was deleted', async () => {
      for (const [reason, stopped] of [
        [undefined, 'aborted'],
        [new MessageGoneError('m1'), 'deleted'],
      ] as const) {
        const { surface, messages, calls } = deletableSurface();
        let cancelled = 0;
        const channel = new ReplyChannel(() => cancelled++);
        const stop = new AbortController();
        const rendering = renderReply(channel, surface, {}, { signal: stop.signal, emptyText: '(no answer)' });
        channel.push({ type: 'text', delta: 'Half an' });
        await settle();
        stop.abort(reason);
        // What the engine says once its request is aborted is not shown.
        channel.push({ type: 'error', code: 'cancelled', message: 'The reply was cancelled.' });
        const result = await rendering;
        expect(result.stopped).toBe(stopped);
        expect(cancelled).toBe(1);
        expect(result.error).toBeUndefined();
        expect(result.messages).toEqual(['m1']);
        expect(messages.get('m1')).toBe('Half an');
        expect(calls.filter((c) => c.startsWith('close'))).toEqual([]);
      }
    });

    it('a signal aborted before the reply starts shows nothing', async () => {
      const { surface, messages } = deletableSurface();
      const channel = new ReplyChannel(() => {});
      channel.push({ type: 'text', delta: 'Too late' });
      const result = await renderReply(channel, surface, {}, { signal: AbortSignal.abort(), emptyText: '(no answer)' });
      expect(result).toMatchObject({ stopped: 'aborted', messages: [] });
      expect(messages.size).toBe(0);
    });
  });
});
