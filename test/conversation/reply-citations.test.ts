import { describe, expect, it } from 'vitest';
import { ReplyCitations } from '../../src/conversation/reply-citations.ts';
import { MarkerRewriter, markerRemap } from '../../src/service/citations.ts';

const cite = (index: number, url: string) => ({ index, url, title: url });

function rewrite(remap: number[], deltas: string[]): string {
  const rewriter = new MarkerRewriter(markerRemap(remap));
  return deltas.map((d) => rewriter.push(d)).join('') + rewriter.flush();
}

describe('ReplyCitations', () => {
  it('takes the first response numbering as it is', () => {
    const sources = new ReplyCitations();
    expect(sources.add([cite(1, 'a'), cite(2, 'b')])).toBeNull();
    expect(sources.list.map((c) => c.url)).toEqual(['a', 'b']);
  });

  it('shows every web source, and a workspace message only when the answer cites it, numbers kept', () => {
    const sources = new ReplyCitations();
    const message = (index: number, url: string) => ({ ...cite(index, url), message: { channelName: 'launch', author: 'Bob', sentAt: 0 } });
    sources.add([cite(1, 'web')]);
    sources.add([message(1, 'm1'), message(2, 'm2'), message(3, 'm3')]);
    expect(sources.shownWith('The web says so [1]; Bob decided it [4, 2].').map((c) => [c.index, c.url])).toEqual([
      [1, 'web'],
      [2, 'm1'],
      [4, 'm3'],
    ]);
    expect(sources.shownWith('No markers.').map((c) => c.url)).toEqual(['web']);
    // Code indexing is not a citation, as the markers' rewriting already holds.
    expect(sources.shownWith('Use `items[2]` or f(x)[3].').map((c) => c.url)).toEqual(['web']);
  });

  it('appends later sources, reusing numbers for URLs already listed', () => {
    const sources = new ReplyCitations();
    sources.add([cite(1, 'a'), cite(2, 'b')]);
    expect(sources.add([cite(1, 'c'), cite(2, 'a')])).toEqual([3, 1]);
    expect(sources.list.map((c) => [c.index, c.url])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
  });

  it("gives a remap under which a later round's text points at the reply's sources", () => {
    const sources = new ReplyCitations();
    sources.add([cite(1, 'a')]);
    const remap = sources.add([cite(1, 'b'), cite(2, 'a')])!;
    expect(rewrite(remap, ['B [1', '], both [1,', ' 2], list[1] and [', '9] stay'])).toBe('B [2], both [2, 1], list[1] and [9] stay');
  });
});
