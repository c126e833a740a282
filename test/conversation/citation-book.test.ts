import { describe, expect, it } from 'vitest';
import { CitationBook, MarkerRewriter } from '../../src/conversation/citation-book.ts';

const cite = (index: number, url: string) => ({ index, url, title: url });

describe('CitationBook', () => {
  it('takes the first response numbering as it is', () => {
    const book = new CitationBook();
    expect(book.add([cite(1, 'a'), cite(2, 'b')])).toBeNull();
    expect(book.citations.map((c) => c.url)).toEqual(['a', 'b']);
  });

  it('appends later sources, reusing numbers for URLs already listed', () => {
    const book = new CitationBook();
    book.add([cite(1, 'a'), cite(2, 'b')]);
    expect(book.add([cite(1, 'c'), cite(2, 'a')])).toEqual([3, 1]);
    expect(book.citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });
});

describe('MarkerRewriter', () => {
  it('renumbers markers, also when a marker is split across deltas', () => {
    const rewriter = new MarkerRewriter([3, 1]);
    const out = ['See [', '1] and [2', ']. Also [7] and [', 'x]', ' end ['].map((d) => rewriter.push(d)).join('') + rewriter.flush();
    expect(out).toBe('See [3] and [1]. Also [7] and [x] end [');
  });
});
