import { describe, expect, it } from 'vitest';
import { mentionsUser } from '../../adapters/slack/slack-event.ts';
import { expectLinearTime } from '../support/linear-time.ts';

describe('mentionsUser', () => {
  it.each([
    ['<@U1> hi', true],
    ['hi <@U1|herald>', true],
    ['<@U12> is someone else', false],
    ['<@U1 not closed', false],
    ['<@U1|label never closed', false],
    ['<@U1|a <@U1>', true],
    ['&lt;@U1&gt;', false],
  ])('%j → %s', (text, expected) => {
    expect(mentionsUser(text, 'U1')).toBe(expected);
  });

  it('answers no without a text or an id', () => {
    expect(mentionsUser(undefined, 'U1')).toBe(false);
    expect(mentionsUser('<@U1>', undefined)).toBe(false);
  });

  it.each([
    ['unclosed labels', '<@U1|'],
    ['other users', '<@U12'],
  ])('checks 200k characters of %s in linear time', (_name, unit) => {
    expectLinearTime((size) => mentionsUser(unit.repeat(Math.ceil(size / unit.length)), 'U1'));
  });
});
