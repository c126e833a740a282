import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { ffmpegToMonoPcm, locateFfmpeg } from '../../../src/media/audio/ffmpeg.ts';
import { prepareAudioForAsr } from '../../../src/media/audio/prepare-audio.ts';
import { FFMPEG, fixture, NO_FFMPEG, rms } from './audio-fixtures.ts';

const onPath = { ffmpeg: { searchPath: process.env.PATH ?? '' } };

const dir = mkdtempSync(join(tmpdir(), 'herald-ffmpeg-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in ffmpeg in its own directory: a Node script, so it runs whatever PATH holds. */
function fakeFfmpeg(name: string, script: string, executable = true): string {
  const bin = join(dir, name);
  const path = join(bin, 'ffmpeg');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path, `#!${process.execPath}\n${script}\n`);
  chmodSync(path, executable ? 0o755 : 0o644);
  return bin;
}

async function failure(promise: Promise<unknown>): Promise<MediaError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe('locateFfmpeg', () => {
  it('finds nothing on an empty search path', () => {
    expect(locateFfmpeg('')).toBeUndefined();
  });

  it('finds an executable ffmpeg and passes over a file that is not executable', () => {
    const notExecutable = fakeFfmpeg('plain', '', false);
    const executable = fakeFfmpeg('exec', '');
    expect(locateFfmpeg(notExecutable)).toBeUndefined();
    expect(locateFfmpeg(`${notExecutable}:${executable}`)).toBe(join(executable, 'ffmpeg'));
  });
});

describe('without ffmpeg', () => {
  it('tells the user that ffmpeg must be installed to read M4A', async () => {
    const error = await failure(prepareAudioForAsr(fixture('speech.m4a'), { ffmpeg: { searchPath: '' } }));
    expect(error.code).toBe('ffmpeg_missing');
    expect(error.message).toMatch(/M4A \(MPEG-4 audio\)/);
    expect(error.message).toMatch(/install ffmpeg/);
    expect(error.message).toMatch(/MP3, WAV or an Ogg\/Opus voice message/);
  });

  it('still reads voice notes, WAV, MP3 and FLAC in-process', async () => {
    for (const name of ['voice-note.ogg', 'voice-note.webm', 'speech.mp3', 'speech.flac', 'tone-s16le.wav']) {
      const prepared = await prepareAudioForAsr(fixture(name), { ffmpeg: { searchPath: '' } });
      expect(prepared.segments.length).toBe(1);
    }
  });
});

describe('ffmpeg failures', () => {
  it('gives up on a conversion that hangs', async () => {
    const bin = fakeFfmpeg('hang', 'setTimeout(() => {}, 10_000);');
    const started = Date.now();
    const error = await failure(ffmpegToMonoPcm(fixture('speech.m4a'), 'M4A', { searchPath: bin, timeoutMs: 300 }));
    expect(error.code).toBe('conversion_failed');
    expect(error.message).toMatch(/took too long/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports an unexplained ffmpeg failure as a failed conversion with its exit code', async () => {
    const bin = fakeFfmpeg('fail', 'process.stderr.write("something odd happened\\n"); process.exitCode = 3;');
    const error = await failure(ffmpegToMonoPcm(fixture('speech.m4a'), 'M4A', { searchPath: bin }));
    expect(error.code).toBe('conversion_failed');
    expect(error.message).toMatch(/exited with code 3/);
  });

  it('stops ffmpeg once the output passes the duration limit', async () => {
    const bin = fakeFfmpeg('endless', 'const zeros = Buffer.alloc(65536); const more = () => process.stdout.write(zeros, more); more();');
    const error = await failure(ffmpegToMonoPcm(fixture('speech.m4a'), 'M4A', { searchPath: bin, maxDurationSeconds: 2 }));
    expect(error.code).toBe('too_long');
  });
});

describe('with ffmpeg', () => {
  it.for([
    ['speech.m4a', 'mp4', 'M4A (MPEG-4 audio)'],
    ['speech.aac', 'aac-adts', 'AAC (ADTS)'],
    ['speech-vorbis.webm', 'matroska-audio', 'WebM (Vorbis)'],
  ] as const)('converts %s to 16 kHz mono WAV of the right length', async ([name, format, label], ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const prepared = await prepareAudioForAsr(fixture(name), onPath);
    expect(prepared.sourceFormat).toBe(format);
    expect(prepared.sourceLabel).toBe(label);
    // Encoder delay: MP4 edit lists take most of it back, raw ADTS and WebM keep some.
    expect(prepared.durationSeconds).toBeGreaterThan(7.1);
    expect(prepared.durationSeconds).toBeLessThan(7.2);
    const [segment] = prepared.segments;
    expect(segment!.mime).toBe('audio/wav');
    const pcm = new Int16Array(segment!.data.buffer.slice(segment!.data.byteOffset + 44, segment!.data.byteOffset + segment!.data.length));
    expect(rms(pcm)).toBeGreaterThan(500);
  });

  it('calls a cut-off M4A download damaged', async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const error = await failure(prepareAudioForAsr(fixture('truncated.m4a'), onPath));
    expect(error.code).toBe('corrupt');
    expect(error.message).toMatch(/damaged/);
  });

  it('refuses M4A longer than the limit', async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const error = await failure(prepareAudioForAsr(fixture('speech.m4a'), { ...onPath, maxDurationSeconds: 3 }));
    expect(error.code).toBe('too_long');
  });
});
