import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defuseMentions } from '../../adapters/slack/defuse-mentions.ts';

/** What Slack would notify for in markdown: `<!…>` or `<@…>`, written out or as an entity of `<`. */
const LIVE = /(?:<|&lt;|&#0*60;|&#x0*3c;)[!@]/i;

describe('defuseMentions', () => {
  it.each(['<!channel>', '<!here>', '<!everyone>', '<!subteam^S123|team>', '<@U123>', '&lt;!channel&gt;', '&#60;!here&#62;', '&#x3C;@U1&#x3E;'])(
    'defuses %s and keeps it readable',
    (text) => {
      const out = defuseMentions(`hi ${text} there`);
      expect(out).not.toMatch(LIVE);
      expect(out.replaceAll('\u200D', '')).toBe(`hi ${text} there`);
    },
  );

  it('leaves text without mentions alone', () => {
    expect(defuseMentions('a < b, <https://example.com>, <#C123>, 1 <= 2')).toBe('a < b, <https://example.com>, <#C123>, 1 <= 2');
  });

  it('defuses mentions split over the pieces of a stream, wherever the split falls', () => {
    const piece = fc.constantFrom('<', '!', '@', 'channel', '>', '&', 'l', 't', ';', '#', '6', '0', 'x', '3', 'c', 'U1', ' ', 'a');
    fc.assert(
      fc.property(
        fc.array(
          fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
          { maxLength: 12 },
        ),
        (pieces) => {
          const sent = pieces.map(defuseMentions).join('');
          expect(sent).not.toMatch(LIVE);
          expect(sent.replaceAll('\u200D', '')).toBe(pieces.join(''));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
