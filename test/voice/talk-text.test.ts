import { describe, expect, it } from 'vitest';
import { SentenceCutter, spokenText } from '../../src/voice/talk/sentence-cutter.ts';
import { matchName } from '../../src/voice/talk/voice-name.ts';

describe("Herald's name at the start of a heard turn", () => {
  it('is found the way speech recognition writes it, and the rest is what was asked', () => {
    expect(matchName('Herald, what is the capital of France?', 'Herald')).toEqual({ addressed: true, rest: 'what is the capital of France?' });
    expect(matchName('hey herald tell me a joke', 'Herald')).toEqual({ addressed: true, rest: 'tell me a joke' });
    expect(matchName('Okay, Harold. What time is it?', 'Herald').addressed).toBe(true);
    expect(matchName('Gerald what time is it', 'Herald').addressed).toBe(true);
    expect(matchName('Her ald, are you there?', 'Herald')).toEqual({ addressed: true, rest: 'are you there?' });
    expect(matchName('HERALD!!! Help', 'Herald').rest).toBe('Help');
    expect(matchName('Hey Jarvis, lights on', 'Jarvis').addressed).toBe(true);
  });

  it('is not found elsewhere in the turn, nor in other words', () => {
    expect(matchName('What time is it in Tokyo?', 'Herald').addressed).toBe(false);
    expect(matchName('I told Herald yesterday', 'Herald').addressed).toBe(false);
    expect(matchName('Hello there', 'Herald').addressed).toBe(false);
    expect(matchName('Hey you, Herald', 'Herald').addressed).toBe(false);
    expect(matchName('Bob, come here', 'Rob').addressed).toBe(false);
    expect(matchName('', 'Herald')).toEqual({ addressed: false, rest: '' });
  });
});

describe('Cutting a streamed answer into sentences', () => {
  it('hands out each sentence once it is complete, whatever the pieces', () => {
    const cutter = new SentenceCutter();
    expect(cutter.push('Paris is the capital')).toEqual([]);
    expect(cutter.push(' of France. It lies')).toEqual(['Paris is the capital of France.']);
    expect(cutter.push(' on the Seine! Mr. Smith lives at No. 5, e.g. there? Pi is 3.14')).toEqual([
      'It lies on the Seine!',
      'Mr. Smith lives at No. 5, e.g. there?',
    ]);
    expect(cutter.push(' exactly.\n- one\n- two')).toEqual(['Pi is 3.14 exactly.', '- one']);
    expect(cutter.flush()).toBe('- two');
    expect(cutter.flush()).toBeUndefined();
  });

  it('cuts a long run without punctuation at a comma or a space', () => {
    const cutter = new SentenceCutter();
    const sentences = cutter.push(`${'word '.repeat(50)}and, ${'more '.repeat(40)}`);
    expect(sentences.length).toBe(1);
    expect(sentences[0]!.length).toBeLessThanOrEqual(300);
    expect(sentences[0]!.endsWith(',')).toBe(true);
  });

  it('speaks a sentence without markers, markup or addresses', () => {
    expect(spokenText('## **Paris** is the [capital](https://x.example) of France [1][2].')).toBe('Paris is the capital of France.');
    expect(spokenText('- See https://example.com/a?b=c for `more`')).toBe('See a link for more');
  });
});
