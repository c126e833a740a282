import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { sniffAudio } from '../../../src/media/audio/sniff-audio.ts';
import { fixture } from './audio-fixtures.ts';

function sniffError(bytes: Uint8Array): MediaError {
  try {
    sniffAudio(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaError);
    return error as MediaError;
  }
  throw new Error('expected sniffAudio to throw');
}

describe('sniffAudio', () => {
  it.each([
    ['voice-note.ogg', 'ogg-opus', 'Ogg Opus'],
    ['voice-note.webm', 'webm-opus', 'WebM (Opus)'],
    ['speech-vorbis.ogg', 'ogg-vorbis', 'Ogg Vorbis'],
    ['speech-flac.ogg', 'ogg-flac', 'Ogg FLAC'],
    ['speech.flac', 'flac', 'FLAC'],
    ['speech.mp3', 'mp3', 'MP3'],
    ['speech.mp2', 'mp2', 'MPEG audio layer II'],
    ['speech-vorbis.webm', 'matroska-audio', 'WebM (Vorbis)'],
    ['speech.m4a', 'mp4', 'M4A (MPEG-4 audio)'],
    ['speech.aac', 'aac-adts', 'AAC (ADTS)'],
    ['tone-s16le.wav', 'wav', 'WAV'],
    ['tone-f32-plain.wav', 'wav', 'WAV'],
    ['stereo-44k.wav', 'wav', 'WAV'],
  ])('recognises %s from its bytes', (name, format, label) => {
    expect(sniffAudio(fixture(name))).toEqual({ format, label });
  });

  it('finds MP3 frames behind an ID3v2 tag', () => {
    const mp3 = fixture('speech.mp3');
    const tagBody = new Uint8Array(300); // padding is legal tag content
    const header = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, (300 >> 7) & 0x7f, 300 & 0x7f]);
    const tagged = Buffer.concat([header, tagBody, mp3]);
    expect(sniffAudio(tagged)).toEqual({ format: 'mp3', label: 'MP3' });
  });

  it('calls a tag with no audio behind it damaged', () => {
    const header = new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 20]);
    const error = sniffError(Buffer.concat([header, new Uint8Array(20), Buffer.from('no frames here at all')]));
    expect(error.code).toBe('corrupt');
  });

  it('reports an empty file as empty', () => {
    const error = sniffError(fixture('empty.bin'));
    expect(error.code).toBe('empty');
    expect(error.message).toMatch(/empty/i);
  });

  it.each([
    ['not-audio.png', /image \(PNG\)/],
    ['not-audio.html', /web page \(HTML\)/],
    ['video-no-sound.webm', /WebM video without sound/],
  ])('names what %s looks like instead of audio', (name, expected) => {
    const error = sniffError(fixture(name));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(expected);
    expect(error.message).toMatch(/Ogg\/Opus, WebM, M4A, MP3, WAV/);
  });

  it.each([
    ['a JPEG photo', [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46], /image \(JPEG\)/],
    ['an iPhone HEIC photo', [0, 0, 0, 0x18, ...Buffer.from('ftypheic'), 0, 0, 0, 0, ...Buffer.from('mif1heic')], /image \(HEIC\)/],
    ['a PDF', [...Buffer.from('%PDF-1.7\n%\xe2\xe3')], /PDF document/],
    ['an AVI video', [...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('AVI LIST')], /video file \(AVI\)/],
    ['a plain text file', [...Buffer.from('Meeting notes: buy milk\n')], /text file/],
  ])('recognises %s as not audio', (_, bytes, expected) => {
    const error = sniffError(new Uint8Array(bytes));
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(expected);
  });

  it('says it does not recognise random binary data', () => {
    let seed = 7;
    const noise = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    const error = sniffError(noise);
    expect(error.code).toBe('unsupported_format');
    expect(error.message).toMatch(/does not recognise it as audio/);
  });

  it('reports a WebM cut off before its track list as damaged', () => {
    const error = sniffError(fixture('voice-note.webm').subarray(0, 40));
    expect(error.code).toBe('corrupt');
  });
});
