import { readFileSync } from 'node:fs';

/**
 * Recorded sounds of simulated users (test/fixtures/audio/talk, made by make-fixtures.sh: 48 kHz mono s16le),
 * with the words said ('' for sounds that are not speech). The suffix names the voice: `-a` is one speaker
 * (en-us), `-b` another (en-gb, female).
 */
export const TALK_FIXTURES = {
  'capital-of-france-a': 'Herald, what is the capital of France?',
  'time-in-tokyo-b': 'What time is it in Tokyo?',
  'tell-me-a-joke-b': 'Hey Herald, tell me a joke.',
  'long-interruption-a': 'Wait, stop, that is not what I meant. I asked about Paris.',
  'mm-hm-a': 'mm-hm',
  cough: '',
  click: '',
  'room-noise': '',
} as const;

export type TalkFixture = keyof typeof TALK_FIXTURES;

/** The fixture's samples. */
export function talkFixture(name: TalkFixture): Int16Array {
  const bytes = readFileSync(new URL(`../../fixtures/audio/talk/${name}.pcm`, import.meta.url));
  const pcm = new Int16Array(bytes.byteLength >> 1);
  new Uint8Array(pcm.buffer).set(bytes.subarray(0, pcm.byteLength));
  return pcm;
}
