import { MessageFlags } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { DiscordSurface, type EditBody, type MessageBody } from '../../adapters/discord/discord-surface.ts';
import { RouteRateLimits } from '../../adapters/discord/route-rate-limits.ts';
import { finishReply, postFile } from '../../adapters/discord/finish-reply.ts';
import type { RenderedReply } from '../../src/streaming/render-reply.ts';
import { silentLogger } from '../helpers/logger.ts';

/** A surface that records what it would send to Discord. */
class RecordingSurface extends DiscordSurface {
  readonly uploadLimitBytes = 1000;
  readonly sent: MessageBody[] = [];
  readonly edits: { handle: string; body: EditBody }[] = [];

  constructor() {
    super({ rateLimits: new RouteRateLimits(), createKey: 'create', editKey: 'edit' }, silentLogger);
  }

  protected async send(body: MessageBody): Promise<string> {
    this.sent.push(body);
    return `m${this.sent.length}`;
  }

  protected async edit(handle: string, body: EditBody): Promise<void> {
    this.edits.push({ handle, body });
  }
}

function rendered(overrides: Partial<RenderedReply>): RenderedReply {
  return { text: '', messages: [], citations: [], reasoning: '', attachments: [], transcripts: [], ...overrides };
}

const citation = { index: 1, url: 'https://news.example/a', title: 'A story' };

describe('discord: what follows the streamed text', () => {
  it('says a file is over the upload limit instead of uploading it', async () => {
    const surface = new RecordingSurface();
    await postFile(surface, { name: 'big.wav', mime: 'audio/wav', data: Buffer.alloc(5 * 1024 * 1024) });
    expect(surface.sent).toEqual([{ content: '⚠️ "big.wav" is 5.0 MB, over the 0.0 MB upload limit here, so I can\'t post it.' }]);
  });

  it('posts a voice message on its own, after its caption', async () => {
    const surface = new RecordingSurface();
    await postFile(
      surface,
      { name: 'v.ogg', mime: 'audio/ogg', data: Buffer.from('OggS'), voiceMessage: { durationSeconds: 1.5, waveform: 'AAAA' } },
      'Here:',
    );
    expect(surface.sent).toEqual([
      { content: 'Here:' },
      { files: [{ attachment: Buffer.from('OggS'), name: 'v.ogg', duration: 1.5, waveform: 'AAAA' }], flags: MessageFlags.IsVoiceMessage },
    ]);
  });

  it('adds the sources embed to the last message, or posts it apart when that message hides embeds', async () => {
    const surface = new RecordingSurface();
    await finishReply(surface, rendered({ messages: ['m1'], citations: [citation] }), { showReasoning: false, logger: silentLogger });
    expect(surface.edits).toEqual([{ handle: 'm1', body: { embeds: [expect.objectContaining({ title: 'Sources' })] } }]);
    expect(surface.sent).toEqual([]);

    const crowded = new RecordingSurface();
    const handle = await crowded.open(`${'https://x.example/a '.repeat(95)}end`);
    expect(crowded.sent[0]).toMatchObject({ flags: MessageFlags.SuppressEmbeds });
    await finishReply(crowded, rendered({ messages: [handle], citations: [citation] }), { showReasoning: false, logger: silentLogger });
    expect(crowded.edits).toEqual([]);
    expect(crowded.sent[1]).toEqual({ embeds: [expect.objectContaining({ title: 'Sources' })] });
  });

  it('attaches the reasoning only when asked for', async () => {
    const quiet = new RecordingSurface();
    await finishReply(quiet, rendered({ reasoning: 'because' }), { showReasoning: false, logger: silentLogger });
    expect(quiet.sent).toEqual([]);
    const shown = new RecordingSurface();
    await finishReply(shown, rendered({ reasoning: 'because' }), { showReasoning: true, logger: silentLogger });
    expect(shown.sent).toEqual([{ content: '🧠 Reasoning', files: [{ attachment: Buffer.from('because'), name: 'reasoning.md' }] }]);
  });

  it('switches SUPPRESS_EMBEDS on and off by edit as the text outgrows wrapped links', async () => {
    const surface = new RecordingSurface();
    const handle = await surface.open('see https://x.example/a');
    expect(surface.sent[0]).toEqual({ content: 'see <https://x.example/a>' });
    await surface.update(handle, `${'https://x.example/a '.repeat(95)}end`);
    expect(surface.edits[0]!.body.flags).toBe(MessageFlags.SuppressEmbeds);
    await surface.close(handle, 'short again https://x.example/b');
    expect(surface.edits[1]!.body).toEqual({ content: 'short again <https://x.example/b>', flags: [] });
  });
});
