import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutLinkPreviews } from '../../adapters/discord/link-previews.ts';
import { sourcesEmbed } from '../../adapters/discord/sources-embed.ts';
import { MessageFlag } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

describe('discord: cited answers', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ env: { WEB_SEARCH: 'auto', WEB_SEARCH_LIMIT: '3' } });
  });

  afterAll(async () => {
    await h.close();
  });

  it('keeps [n] markers in the text and lists the sources in an embed; links in the text show no previews', async () => {
    const { fake } = h;
    const before = h.finished;
    fake.sendMessage({ channelId: fake.textChannel.id, content: `${h.mention} latest on https://example.org/report` });
    await h.repliesFinished(before + 1);
    const [reply] = h.botMessages(fake.textChannel.id);
    expect(reply!.content).toMatch(/\[1\].*\[2\].*\[3\]/s);
    expect(reply!.content).toContain('<https://example.org/report>');
    expect(reply!.content).not.toMatch(/[^<]https:\/\/example\.org\/report/);
    expect(reply!.flags & MessageFlag.SuppressEmbeds).toBe(0);
    expect(reply!.embeds).toHaveLength(1);
    const embed = reply!.embeds[0] as { title: string; description: string };
    expect(embed.title).toBe('Sources');
    const lines = embed.description.split('\n');
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => {
      expect(line).toMatch(
        new RegExp(
          `^\\*\\*${i + 1}\\.\\*\\* \\[.+ — source ${i + 1}\\]\\(https://news${i + 1}\\.example\\.com/articles/[^)]+\\) — Example News ${i + 1} · 2025-01-0${i + 1}$`,
        ),
      );
    });
    expect(h.fake.rateLimitedCount).toBe(0);
  });
});

describe('discord: link previews and the sources embed, piece by piece', () => {
  it('wraps bare and markdown links, leaves code and wrapped links alone, keeps trailing punctuation outside', () => {
    expect(withoutLinkPreviews('See https://a.example/x. Or (https://b.example/y).')).toBe('See <https://a.example/x>. Or (<https://b.example/y>).');
    expect(withoutLinkPreviews('[docs](https://c.example/d) and <https://e.example>')).toBe('[docs](<https://c.example/d>) and <https://e.example>');
    expect(withoutLinkPreviews('https://en.wikipedia.org/wiki/Foo_(bar) ok')).toBe('<https://en.wikipedia.org/wiki/Foo_(bar)> ok');
    expect(withoutLinkPreviews('`https://f.example` and\n```\ncurl https://g.example\n```\nthen https://h.example')).toBe(
      '`https://f.example` and\n```\ncurl https://g.example\n```\nthen <https://h.example>',
    );
    expect(withoutLinkPreviews('open block\n```sh\ncurl https://i.example')).toBe('open block\n```sh\ncurl https://i.example');
  });

  it("tells a message of the workspace apart: channel and author link to it, the time shows in the reader's zone", () => {
    const sentAt = Date.UTC(2025, 2, 4, 9, 30);
    const embed = sourcesEmbed([
      { index: 1, url: 'https://web.example/a', title: 'Web page' },
      {
        index: 2,
        url: 'https://discord.com/channels/1/2/3',
        title: 'We ship on *Friday*',
        message: { channelName: 'launch', author: 'Bob', sentAt },
      },
    ]);
    expect(embed.description).toBe(
      `**1.** [Web page](https://web.example/a)\n**2.** [#launch · Bob](https://discord.com/channels/1/2/3) · <t:${sentAt / 1000}:f> — We ship on \\*Friday\\*`,
    );
  });

  it('escapes titles, keeps link targets intact, and stays within the embed description limit', () => {
    const embed = sourcesEmbed([
      { index: 2, url: 'https://x.example/a_(b)', title: 'Second [draft] *bold*', siteName: 'X', publishTime: 'yesterday' },
      { index: 1, url: 'https://y.example/', title: '', publishTime: '2024-12-31T23:00:00Z' },
    ]);
    expect(embed.description).toBe(
      '**1.** [https://y.example/](https://y.example/) — 2024-12-31\n**2.** [Second \\[draft\\] \\*bold\\*](https://x.example/a_%28b%29) — X · yesterday',
    );
    const many = Array.from({ length: 60 }, (_, i) => ({ index: i + 1, url: `https://z.example/${'p'.repeat(60)}/${i}`, title: 't'.repeat(100) }));
    const capped = sourcesEmbed(many).description!;
    expect(capped.length).toBeLessThanOrEqual(4096);
    expect(capped).toMatch(/… and \d+ more$/);
  });
});
