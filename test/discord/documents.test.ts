import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_DOWNLOAD_BYTES } from '../../adapters/discord/attachments.ts';
import { registerCommands } from '../../adapters/discord/index.ts';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import type { UserMessageAttachment } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

const BUGGY_PY = 'def average(values):\n    return sum(values) / len(values) + 1\n';
// The first bytes of a real zip archive: a local file header.
const ZIP = Buffer.concat([Buffer.from('504b0304140000000800', 'hex'), Buffer.alloc(64, 7)]);

interface SentAttachment {
  id: string;
  filename: string;
}

describe('discord: attached documents', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    await registerCommands(h.config, { guildId: h.fake.guild.id });
  });

  afterAll(async () => {
    await h.close();
  });

  /** A user message in a fresh channel; resolves with Herald's reply (all its messages) and what was sent. */
  async function ask(name: string, content: string, attachments: UserMessageAttachment[]) {
    const channel = h.fake.addChannel({ name });
    const before = h.finished;
    const sent = h.fake.sendMessage({ channelId: channel.id, content, attachments });
    await h.repliesFinished(before + 1);
    const messages = h.botMessages(channel.id);
    return { text: messages.map((m) => m.content).join('\n'), messages, sent: sent.attachments as SentAttachment[] };
  }

  const downloadsOf = (attachment: SentAttachment) => h.fake.cdnRequests.filter((r) => r.attachmentId === attachment.id);

  it('passes readable files with their bytes and unreadable ones by name only, never downloading those', async () => {
    const handle = vi.spyOn(h.core.engine, 'handle');
    try {
      const { sent } = await ask('to-the-core', `${h.mention} look`, [
        { filename: 'main.py', bytes: Buffer.from(BUGGY_PY) },
        { filename: 'clip.mp4', bytes: Buffer.alloc(32, 1) },
        { filename: 'site.zip', bytes: ZIP },
      ]);
      const incoming = handle.mock.calls[0]![0] as IncomingMessage;
      expect(incoming.documents?.map((d) => [d.name, d.mime, d.data && Buffer.from(d.data).toString()])).toEqual([
        ['main.py', 'text/x-python; charset=utf-8', BUGGY_PY],
        ['clip.mp4', 'video/mp4', undefined],
        ['site.zip', 'application/zip', undefined],
      ]);
      expect(incoming.images).toBeUndefined();
      expect(incoming.audio).toBeUndefined();
      expect(sent.map((a) => downloadsOf(a).length)).toEqual([1, 0, 0]);
    } finally {
      handle.mockRestore();
    }
  });

  it('refuses a readable file over the download cap without downloading it', async () => {
    const { text, sent } = await ask('too-big', `${h.mention} any errors in here?`, [
      { filename: 'server.log', bytes: Buffer.alloc(MAX_DOWNLOAD_BYTES + 1024 * 1024, 0x61) },
    ]);
    expect(text).toContain('"server.log" is 26.0 MB, over the 25.0 MB I can read.');
    expect(downloadsOf(sent[0]!)).toEqual([]);
  });
});
