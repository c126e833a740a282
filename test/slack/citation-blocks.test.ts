import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { citationBlocks, citationLine } from '../../adapters/slack/citation-blocks.ts';

describe('citation blocks', () => {
  it('numbers each source as a link with its site and date', () => {
    expect(
      citationLine({
        index: 2,
        url: 'https://news.example.com/a?x=1&y=2',
        title: 'Rates <up> | again',
        siteName: 'News & Co',
        publishTime: '2025-03-04T10:00:00Z',
      }),
    ).toBe('<https://news.example.com/a?x=1&amp;y=2|[2] Rates &lt;up&gt; ¦ again> — News &amp; Co, 2025-03-04');
    expect(citationLine({ index: 1, url: 'https://example.org/', title: '' })).toBe('<https://example.org/|[1] example.org>');
  });

  it("tells a message of the workspace apart: channel and author link to its permalink, the time shows in the reader's zone", () => {
    const sentAt = Date.UTC(2025, 2, 4, 9, 30);
    const message = { channelName: 'launch', author: 'Bob <ops>', sentAt };
    const url = 'https://acme.slack.com/archives/C1/p1741080600000100?thread_ts=1741080000.000100&cid=C1';
    expect(citationLine({ index: 3, url, title: 'We ship on Friday & not before', message })).toBe(
      '<https://acme.slack.com/archives/C1/p1741080600000100?thread_ts=1741080000.000100&amp;cid=C1|[3] #launch · Bob &lt;ops&gt;>' +
        ' · <!date^1741080600^{date_short_pretty} {time}|2025-03-04 09:30 UTC> — We ship on Friday &amp; not before',
    );
    const lines = citationBlocks([
      { index: 1, url: 'https://web.example/a', title: 'Web' },
      { index: 2, url, title: 'x', message },
    ])[0]!.elements[0]!.text.split('\n');
    expect(lines).toEqual([
      '*Sources*',
      '<https://web.example/a|[1] Web>',
      expect.stringMatching(/^<https:\/\/acme\.slack\.com\/[^|]+\|\[2\] #launch · /),
    ]);
  });

  it('lists the sources in order under a heading, in context blocks within Block Kit limits', () => {
    const citations = Array.from({ length: 40 }, (_, i) => ({
      index: 40 - i,
      url: `https://site${40 - i}.example.com/${'p'.repeat(60)}`,
      title: `Title ${40 - i} ${'t'.repeat(100)}`,
    }));
    const blocks = citationBlocks(citations);
    expect(blocks.length).toBeGreaterThan(1);
    const texts = blocks.flatMap((b) => b.elements.map((e) => e.text));
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(3000);
    const numbers = texts
      .join('\n')
      .match(/\|\[(\d+)\]/g)!
      .map((m) => Number(m.slice(2, -1)));
    expect(numbers).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(texts[0]!.startsWith('*Sources*\n')).toBe(true);
  });

  it('makes nothing when there are no sources', () => {
    expect(citationBlocks([])).toEqual([]);
  });
});

describe('citation blocks from any source the service sends', () => {
  it('lists a source with a relative URL and a blank title as plain text instead of throwing', () => {
    expect(citationLine({ index: 1, url: '/wiki/Page', title: '  ' })).toBe('[1] source');
    expect(citationLine({ index: 2, url: 'javascript:alert(1)', title: 'Click' })).toBe('[2] Click');
    expect(citationBlocks([{ index: 1, url: '', title: '' }])[0]!.elements[0]!.text).toBe('*Sources*\n[1] source');
  });

  it('never throws, keeps every element within Block Kit limits and lists every source once', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 3000 }),
      fc.constantFrom('', ' ', '/rel', 'https://ok.example/a', `https://x.example/${'&'.repeat(2500)}`),
    );
    const citation = fc.record(
      {
        index: fc.integer({ min: 1, max: 999 }),
        url: text,
        title: text,
        siteName: fc.option(text, { nil: undefined }),
        publishTime: fc.option(text, { nil: undefined }),
      },
      { requiredKeys: ['index', 'url', 'title'] },
    );
    fc.assert(
      fc.property(fc.uniqueArray(citation, { maxLength: 12, selector: (c) => c.index }), (citations) => {
        const blocks = citationBlocks(citations);
        const texts = blocks.flatMap((b) => b.elements.map((e) => e.text));
        for (const element of texts) expect(element.length).toBeLessThanOrEqual(3000);
        const listed = texts.join('\n');
        for (const { index } of citations) expect(listed).toContain(`[${index}]`);
      }),
      { numRuns: 300 },
    );
  });
});
