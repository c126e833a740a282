import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSlackText } from '../../adapters/slack/incoming-text.ts';
import { expectLinearTime } from '../support/linear-time.ts';

describe('readSlackText', () => {
  it('drops the mention that addresses the bot and keeps other mentions as tokens for the core', () => {
    expect(readSlackText('<@UBOT> ask <@U123|ada> about <@U456>', { botUserId: 'UBOT' })).toEqual({
      text: 'ask <@U123|ada> about <@U456>',
      mentions: [
        { id: 'U123', raw: '<@U123|ada>' },
        { id: 'U456', raw: '<@U456>' },
      ],
    });
    expect(readSlackText('thanks <@UBOT>!', { botUserId: 'UBOT' }).mentions).toEqual([{ id: 'UBOT', raw: '<@UBOT>' }]);
  });

  it('lists a mention whose label holds an escaped character as it reads in the text', () => {
    expect(readSlackText('ask <@U7|Tom &amp; Jerry> now')).toEqual({
      text: 'ask <@U7|Tom & Jerry> now',
      mentions: [{ id: 'U7', raw: '<@U7|Tom & Jerry>' }],
    });
  });

  it('turns channels, broadcasts, groups, links and escapes into plain text', () => {
    const { text } = readSlackText(
      'in <#C1|general> <!here> <!subteam^S1|@oncall>: see <https://example.com/a?b=1&amp;c=2|the page>, <https://x.test>, ' +
        '<mailto:a@b.test|a@b.test> &amp; 1 &lt; 2 &gt; 0',
    );
    expect(text).toBe('in #general @here @oncall: see the page (https://example.com/a?b=1&c=2), https://x.test, a@b.test & 1 < 2 > 0');
  });
});

describe('readSlackText on any text', () => {
  const slackText = fc
    .array(
      fc.oneof(
        fc.constantFrom('<', '>', '|', '@U1', '#C1', '!here', '!subteam^S1', '!date^1^x', 'mailto:', 'https://x', '&lt;', '&gt;', '&amp;', ' '),
        fc.string({ maxLength: 6 }),
      ),
      {
        maxLength: 40,
      },
    )
    .map((pieces) => pieces.join(''));

  it('never throws, and lists as mentions only tokens that are in the text', () => {
    fc.assert(
      fc.property(slackText, (text) => {
        const { text: read, mentions } = readSlackText(text, { botUserId: 'U1' });
        expect(typeof read).toBe('string');
        for (const { raw } of mentions) expect(read).toContain(raw);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['unclosed tokens', '<@U2|'],
    ['a bot mention that never closes', '<@U1|'],
  ])('reads 200k characters of %s in linear time', (_name, unit) => {
    expectLinearTime((size) => readSlackText(unit.repeat(Math.ceil(size / unit.length)), { botUserId: 'U1' }));
  });
});
