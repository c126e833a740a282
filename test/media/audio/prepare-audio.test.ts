import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { prepareAudioForAsr } from '../../../src/media/audio/prepare-audio.ts';
import { dataUrlLength } from '../../../src/media/audio/segments.ts';
import { readWav } from '../../../src/media/wav.ts';
import { fixture } from './audio-fixtures.ts';

const SPEECH_SECONDS = 156_823 / 22050;

async function failure(promise: Promise<unknown>): Promise<MediaError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe('prepareAudioForAsr', () => {
  it.each([
    ['voice-note.ogg', 'ogg-opus', 'Ogg Opus'],
    ['voice-note.webm', 'webm-opus', 'WebM (Opus)'],
    ['speech.flac', 'flac', 'FLAC'],
    ['speech-flac.ogg', 'ogg-flac', 'Ogg FLAC'],
    ['speech-vorbis.ogg', 'ogg-vorbis', 'Ogg Vorbis'],
  ])('turns %s into one 16 kHz mono WAV of the same duration', async (name, format, label) => {
    const prepared = await prepareAudioForAsr(fixture(name));
    expect(prepared.sourceFormat).toBe(format);
    expect(prepared.sourceLabel).toBe(label);
    expect(prepared.durationSeconds).toBeCloseTo(SPEECH_SECONDS, 3);
    expect(prepared.segments).toHaveLength(1);
    const [segment] = prepared.segments;
    expect(segment!.mime).toBe('audio/wav');
    expect(segment!.startSeconds).toBe(0);
    expect(segment!.durationSeconds).toBe(prepared.durationSeconds);
    const audio = readWav(segment!.data);
    expect(audio.sampleRate).toBe(16000);
    expect(audio.channels).toHaveLength(1);
  });

  it('converts a stereo 44.1 kHz WAV', async () => {
    const prepared = await prepareAudioForAsr(fixture('stereo-44k.wav'));
    expect(prepared.durationSeconds).toBe(0.9);
    expect(readWav(prepared.segments[0]!.data).sampleRate).toBe(16000);
  });

  it('passes an MP3 that fits through untouched, since the service takes MP3', async () => {
    const bytes = fixture('speech.mp3');
    const prepared = await prepareAudioForAsr(bytes);
    expect(prepared.sourceFormat).toBe('mp3');
    expect(prepared.segments).toHaveLength(1);
    expect(prepared.segments[0]!.mime).toBe('audio/mpeg');
    expect(Buffer.compare(prepared.segments[0]!.data, Buffer.from(bytes))).toBe(0);
    expect(prepared.durationSeconds).toBeCloseTo(SPEECH_SECONDS, 3);
  });

  it('decodes MPEG layer II, which the service does not take, into WAV', async () => {
    const prepared = await prepareAudioForAsr(fixture('speech.mp2'));
    expect(prepared.segments[0]!.mime).toBe('audio/wav');
    expect(prepared.durationSeconds).toBeCloseTo(157_824 / 22050, 3);
  });

  it('decodes an MP3 too big to send into WAV segments that each fit', async () => {
    const maxBase64Bytes = 50_000;
    expect(dataUrlLength('audio/mpeg', fixture('speech.mp3').length)).toBeGreaterThan(maxBase64Bytes);
    const prepared = await prepareAudioForAsr(fixture('speech.mp3'), { maxBase64Bytes, searchWindowSeconds: 0.5 });
    expect(prepared.segments.length).toBeGreaterThan(5);
    let next = 0;
    for (const segment of prepared.segments) {
      expect(segment.mime).toBe('audio/wav');
      expect(dataUrlLength(segment.mime, segment.data.length)).toBeLessThanOrEqual(maxBase64Bytes);
      expect(segment.startSeconds).toBeCloseTo(next, 9);
      next += segment.durationSeconds;
    }
    expect(next).toBeCloseTo(SPEECH_SECONDS, 3);
  });

  it.each(['voice-note.ogg', 'speech.mp3', 'stereo-44k.wav'])('refuses %s when it is longer than the limit', async (name) => {
    const error = await failure(prepareAudioForAsr(fixture(name), { maxDurationSeconds: 0.5 }));
    expect(error.code).toBe('too_long');
    expect(error.message).toMatch(/0\.5 seconds Herald transcribes at once/);
  });

  it('says how long a WAV is when refusing it, since its header tells', async () => {
    const error = await failure(prepareAudioForAsr(fixture('stereo-44k.wav'), { maxDurationSeconds: 0.5 }));
    expect(error.message).toBe('This recording is 0.9 seconds, more than the 0.5 seconds Herald transcribes at once. Please send a shorter clip.');
  });

  it.each([
    ['empty.bin', 'empty'],
    ['corrupt.wav', 'corrupt'],
    ['not-audio.png', 'unsupported_format'],
    ['not-audio.html', 'unsupported_format'],
    ['video-no-sound.webm', 'unsupported_format'],
  ])('refuses %s with MediaError %s', async (name, code) => {
    const error = await failure(prepareAudioForAsr(fixture(name)));
    expect(error.code).toBe(code);
  });
});
