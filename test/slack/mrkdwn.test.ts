import { describe, expect, it } from 'vitest';
import { toMrkdwn } from '../../adapters/slack/mrkdwn.ts';

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
