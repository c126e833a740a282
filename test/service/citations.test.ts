import { describe, expect, it } from 'vitest';
import { MarkerRewriter, markerRemap, normalizeCitations, remapCitationMarkers } from '../../src/service/citations.ts';

const source = (n: number, extra: object = {}) => ({
  type: 'url_citation',
  url: `https://news${n}.example.com/a`,
  title: `Title ${n}`,
  summary: `Summary ${n}`,
  site_name: `Site ${n}`,
  publish_time: '2025-01-01T08:30:00+08:00',
  logo_url: `https://news${n}.example.com/logo.png`,
  ...extra,
});

describe('normalizeCitations', () => {
  it('keeps each URL once, numbered 1..n in order of first appearance, and maps every original position', () => {
    const { citations, remap } = normalizeCitations([source(1), source(2), source(1), source(3), source(2)]);
    expect(citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://news1.example.com/a'],
      [2, 'https://news2.example.com/a'],
      [3, 'https://news3.example.com/a'],
    ]);
    expect(remap).toEqual([1, 2, 1, 3, 2]);
    expect(citations[0]).toEqual({
      index: 1,
      url: 'https://news1.example.com/a',
      title: 'Title 1',
      summary: 'Summary 1',
      siteName: 'Site 1',
      publishTime: '2025-01-01T08:30:00+08:00',
      logoUrl: 'https://news1.example.com/logo.png',
    });
  });

  it('fills fields a duplicate has and the first lacked, and titles an untitled source by its site', () => {
    const { citations } = normalizeCitations([source(1, { title: '', summary: undefined }), source(1), source(2, { title: '' })]);
    expect(citations[0]).toMatchObject({ title: 'Title 1', summary: 'Summary 1' });
    expect(citations[1]!.title).toBe('Site 2');
  });

  it('gives entries without a URL no number (their markers are dropped)', () => {
    const { citations, remap } = normalizeCitations([source(1), { type: 'url_citation', title: 'no link' }, source(2)]);
    expect(citations).toHaveLength(2);
    expect(remap).toEqual([1, 0, 2]);
    expect(remapCitationMarkers('a [1] b [2] c [3].', remap)).toBe('a [1] b  c [2].');
  });

  it('returns nothing for a missing or malformed annotations field', () => {
    expect(normalizeCitations(undefined)).toEqual({ citations: [], remap: [] });
    expect(normalizeCitations({ url: 'x' })).toEqual({ citations: [], remap: [] });
  });
});

describe('remapCitationMarkers', () => {
  const remap = [1, 2, 3, 1];

  it('renumbers a marker that pointed at a duplicate to the first copy', () => {
    expect(remapCitationMarkers('Cats [1]. Dogs [2]. Birds [3]. Again [4].', remap)).toBe('Cats [1]. Dogs [2]. Birds [3]. Again [1].');
  });

  it('renumbers grouped markers and drops a repeat inside the group', () => {
    expect(remapCitationMarkers('Both [1, 4] and [2,3].', remap)).toBe('Both [1] and [2, 3].');
  });

  it('leaves numbers beyond the annotations and code indexing alone', () => {
    expect(remapCitationMarkers('Year [2024], items[4], f(x)[4], see [4]', remap)).toBe('Year [2024], items[4], f(x)[4], see [1]');
  });

  it('is the identity when there are no duplicates', () => {
    const text = 'A [1] B [2]';
    expect(remapCitationMarkers(text, [1, 2])).toBe(text);
  });
});

describe('MarkerRewriter', () => {
  const remap = [1, 2, 1, 3];
  const text = 'First [1], then [2]; again [3] and [4]. Code: a[3]. Group [3, 4] end [3]';
  const expected = remapCitationMarkers(text, remap);

  it('matches the whole-text rewrite for every split into two deltas', () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const rewriter = new MarkerRewriter(markerRemap(remap));
      const out = rewriter.push(text.slice(0, cut)) + rewriter.push(text.slice(cut)) + rewriter.flush();
      expect(out, `cut at ${cut}`).toBe(expected);
    }
  });

  it('matches the whole-text rewrite when every character is its own delta', () => {
    const rewriter = new MarkerRewriter(markerRemap(remap));
    expect([...text].map((c) => rewriter.push(c)).join('') + rewriter.flush()).toBe(expected);
  });

  it('does not hold back a bracket that cannot be a marker', () => {
    const rewriter = new MarkerRewriter(markerRemap(remap));
    expect(rewriter.push('see [note')).toBe('see [note');
    expect(rewriter.push(' [')).toBe(' ');
    expect(rewriter.push('3] ok')).toBe('[1] ok');
  });
});
