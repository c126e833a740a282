import { describe, expect, it } from 'vitest';
import { SummaryMarkers } from '../../src/workspace/summarize-markers.ts';
import { channelMessages } from './memory-history.ts';

describe('SummaryMarkers', () => {
  it('numbers the cited messages by first appearance, across pieces cut anywhere, and leaves code alone', () => {
    const markers = new SummaryMarkers(channelMessages(12, (i) => `message ${i}`));
    const text = 'Ship it [12]. See items[2] and f(x)[3]; both [3, 12] and [7,7] and [40] and [0].';
    let out = '';
    for (const piece of text.match(/.{1,3}/gs)!) out += markers.push(piece);
    out += markers.flush();
    expect(out).toBe('Ship it [1]. See items[2] and f(x)[3]; both [2, 1] and [3] and  and .');
    expect(markers.citations.map((c) => [c.index, c.url])).toEqual([
      [1, 'https://chat.example/launch/m12'],
      [2, 'https://chat.example/launch/m3'],
      [3, 'https://chat.example/launch/m7'],
    ]);
  });

  it('lets an unfinished bracket through at the end', () => {
    const markers = new SummaryMarkers(channelMessages(2, (i) => `message ${i}`));
    expect(markers.push('the list [1, ')).toBe('the list ');
    expect(markers.flush()).toBe('[1, ');
    expect(markers.citations).toEqual([]);
  });
});
