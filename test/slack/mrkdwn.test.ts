import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toMrkdwn } from '../../adapters/slack/mrkdwn.ts';
import { expectLinearTime } from '../support/linear-time.ts';

describe('toMrkdwn', () => {
  it.each([
    ['**bold** and __also bold__', '*bold* and *also bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['~~gone~~', '~gone~'],
    ['see [the docs](https://example.com/a?b=1&c=2)', 'see <https://example.com/a?b=1&amp;c=2|the docs>'],
    ['a link with a pipe: [a|b](https://x.test/p|q)', 'a link with a pipe: <https://x.test/p%7Cq|a¦b>'],
    ['an autolink <https://example.com>', 'an autolink <https://example.com>'],
    ['# Title', '*Title*'],
    ['### A **bold** heading ###', '*A bold heading*'],
    ['- one\n* two\n  + nested', '• one\n• two\n  • nested'],
    ['- [ ] todo\n- [x] done', '☐ todo\n☑ done'],
    ['1. first\n2. second', '1. first\n2. second'],
    ['> quoted **text**', '> quoted *text*'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['`**not bold** <tag>`', '`**not bold** &lt;tag&gt;`'],
    ['---', '──────────'],
    ['2 * 3 * 4 = 24', '2 * 3 * 4 = 24'],
    ['snake_case_name stays', 'snake_case_name stays'],
    ['\\*literal stars\\*', '*literal stars*'],
  ])('%j → %j', (markdown, mrkdwn) => {
    expect(toMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('keeps fenced code verbatim apart from escaping, and drops the language tag', () => {
    const markdown = ['```ts', 'const x = a < b && **c**;', '```', 'after **bold**'].join('\n');
    expect(toMrkdwn(markdown)).toBe(['```', 'const x = a &lt; b &amp;&amp; **c**;', '```', 'after *bold*'].join('\n'));
  });

  it('closes a fence the text left open', () => {
    expect(toMrkdwn('```\ncode')).toBe('```\ncode\n```');
  });

  it('puts a table in a code block so its columns stay aligned', () => {
    const markdown = ['| a | b |', '|---|---|', '| 1 | 2 |', '', 'text'].join('\n');
    expect(toMrkdwn(markdown)).toBe(['```', '| a | b |', '|---|---|', '| 1 | 2 |', '```', '', 'text'].join('\n'));
  });
});

describe('toMrkdwn on hostile text', () => {
  const liveMention = /<[!@#]/;

  it('turns links to anything but the web into plain labels, never into mentions', () => {
    expect(toMrkdwn('[everyone](!everyone) [you](@U123) [room](#C1) [docs](/docs)')).toBe('everyone you room docs');
    expect(toMrkdwn('<!channel> &lt;!here&gt; <@U123>')).toBe('&lt;!channel&gt; &amp;lt;!here&amp;gt; &lt;@U123&gt;');
  });

  it('never emits a live mention or broadcast, whatever the text', () => {
    const pieces = fc.constantFrom(
      '[x](',
      '](!here)',
      '](@U1 "t")',
      '<',
      '>',
      '!',
      '@',
      '#',
      'channel',
      'here',
      'U1',
      '[',
      ']',
      '(',
      ')',
      '|',
      '`',
      '*',
      '_',
      '~',
      'http://x',
      ' ',
      '\n',
      'a',
      '&lt;',
      '\\',
      '\uE000',
      '\uE001',
      '0',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const out = toMrkdwn(parts.join(''));
        expect(out).not.toMatch(liveMention);
        // Every `<` left is a link this conversion made.
        for (const match of out.matchAll(/</g)) expect(out.slice(match.index + 1)).toMatch(/^(?:https?|mailto):/i);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps private-use placeholders from leaking into the output', () => {
    expect(toMrkdwn('a \uE0000\uE001 b \uE002')).toBe('a 0 b ');
  });

  it.each([
    ['unclosed bold', '**a '],
    ['unclosed strike', '~~a '],
    ['unclosed underscores', ' __a'],
    ['brackets', '['],
    ['half links', '[a]('],
    ['autolink openers', '<http://'],
    ['backtick runs', '`a``b'],
    ['heading padding', '# a    b'],
    ['stars', '*a'],
  ])('converts 200k characters of %s in linear time', (_name, unit) => {
    expectLinearTime((size) => toMrkdwn(unit.repeat(Math.ceil(size / unit.length))));
  });
});
