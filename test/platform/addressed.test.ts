import { describe, expect, it } from 'vitest';
import type { ChannelTriggers } from '../../src/conversation/types.ts';
import { addressedBy, startsWithTriggerWord, type MessageFacts } from '../../src/platform/addressed.ts';

const plain: MessageFacts = {
  fromPerson: true,
  direct: false,
  mentionsHerald: false,
  repliesToHerald: false,
  inHeraldThread: false,
  mentionsOthers: false,
  text: 'hello',
};
const defaults: ChannelTriggers = { answerAll: false, autoThread: false, words: [], statusReactions: false };

describe('addressedBy: is this message for Herald?', () => {
  it('never answers bots, whatever the channel allows', () => {
    const everything: ChannelTriggers = { ...defaults, answerAll: true, words: ['herald'] };
    expect(addressedBy({ ...plain, fromPerson: false, mentionsHerald: true, text: 'herald, hi' }, everything)).toBeUndefined();
    expect(addressedBy({ ...plain, fromPerson: false, direct: true }, everything)).toBeUndefined();
  });

  it('needs a mention, a reply or its thread by default; answer-all channels need none', () => {
    expect(addressedBy(plain, defaults)).toBeUndefined();
    expect(addressedBy({ ...plain, mentionsHerald: true }, defaults)).toBe('mention');
    expect(addressedBy({ ...plain, repliesToHerald: true }, defaults)).toBe('reply');
    expect(addressedBy({ ...plain, inHeraldThread: true }, defaults)).toBe('thread');
    expect(addressedBy(plain, { ...defaults, answerAll: true })).toBe('channel');
  });

  it('leaves a message for someone else to them where no mention is needed, but not when Herald is called too', () => {
    const forBob = { ...plain, mentionsOthers: true };
    expect(addressedBy(forBob, { ...defaults, answerAll: true })).toBeUndefined();
    expect(addressedBy({ ...forBob, inHeraldThread: true }, defaults)).toBeUndefined();
    expect(addressedBy({ ...forBob, inHeraldThread: true, mentionsHerald: true }, defaults)).toBe('thread');
    expect(addressedBy({ ...forBob, mentionsHerald: true }, defaults)).toBe('mention');
    expect(addressedBy({ ...forBob, text: 'herald, ask @bob' }, { ...defaults, words: ['herald'] })).toBe('trigger-word');
  });
});

describe('startsWithTriggerWord', () => {
  const words = ['herald', 'hey herald'];

  it('matches at the start, in any case, up to a word boundary', () => {
    for (const text of ['herald, hi', 'Herald: hi', '  HERALD what now', 'herald', 'Hey Herald, hi', 'herald…?']) {
      expect(startsWithTriggerWord(text, words), text).toBe(true);
    }
    for (const text of ['heralds are old', 'heraldry', 'oh herald, hi', 'herald_bot hi', 'heraldé', '']) {
      expect(startsWithTriggerWord(text, words), text).toBe(false);
    }
    expect(startsWithTriggerWord('herald, hi', [])).toBe(false);
  });
});
