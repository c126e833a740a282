import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';

/** Markdown-ish text: fences of any length, blank lines, sentences, words, emoji, CJK, and random strings. */
const markdownText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '```',
        '```js',
        '~~~~',
        '`'.repeat(40),
        '~'.repeat(3000),
        '\n',
        '\n\n',
        ' ',
        '. ',
        '! ',
        'word',
        'longerword',
        '😀',
        '中文。',
        '\t',
      ),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
    ),
    { maxLength: 120 },
  )
  .map((pieces) => pieces.join(''));

/** Whether every non-space character of `input` is in `output`, in order (output may add fence lines). */
function keepsEveryCharacter(input: string, output: string): boolean {
  const want = input.replace(/\s+/g, '');
  const have = output.replace(/\s+/g, '');
  let at = 0;
  for (const ch of want) {
    at = have.indexOf(ch, at);
    if (at === -1) return false;
    at += ch.length;
  }
  return true;
}

describe('splitMarkdown on any text', () => {
  it('never makes a part over the limit and loses no character', () => {
    fc.assert(
      fc.property(markdownText, fc.integer({ min: 20, max: 600 }), (text, limit) => {
        const parts = splitMarkdown(text, limit);
        for (const part of parts) expect(part.length).toBeLessThanOrEqual(limit);
        expect(keepsEveryCharacter(text, parts.join('\n'))).toBe(true);
        // Without fences nothing is added either: the parts hold exactly the text's characters.
        if (!/[`~]/.test(text)) expect(parts.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
      }),
      { numRuns: 1500 },
    );
  });

  it('ends on a code fence longer than a whole message', () => {
    const text = `${'~'.repeat(3000)}\ncode\n${'~'.repeat(3000)}`;
    const parts = splitMarkdown(text, 2000);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(2000);
    expect(parts.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
  });
});
