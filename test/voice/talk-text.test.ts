import { describe, expect, it } from 'vitest';
import { SentenceCutter, spokenText } from '../../src/voice/talk/sentence-cutter.ts';
import { startsWithName } from '../../src/voice/talk/voice-name.ts';

describe("Herald's name at the start of a heard turn", () => {
  it('is found the way speech recognition writes it', () => {
    for (const heard of [
      'Herald, what is the capital of France?',
      'hey herald tell me a joke',
      'Okay, Harold. What time is it?',
      'Gerald what time is it',
      'Her ald, are you there?',
      'HERALD!!! Help',
    ])
      expect(startsWithName(heard, 'Herald'), heard).toBe(true);
    expect(startsWithName('Hey Jarvis, lights on', 'Jarvis')).toBe(true);
  });

  it('is not found elsewhere in the turn, nor in other words', () => {
    for (const heard of ['What time is it in Tokyo?', 'I told Herald yesterday', 'Hello there', 'Hey you, Herald', ''])
      expect(startsWithName(heard, 'Herald'), heard).toBe(false);
    expect(startsWithName('Bob, come here', 'Rob')).toBe(false);
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
