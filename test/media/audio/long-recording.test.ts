import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareAudioForAsr, type PreparedAudio } from '../../../src/media/audio/prepare-audio.ts';
import { dataUrlLength, DEFAULT_MAX_BASE64_BYTES, transcribeSegments } from '../../../src/media/audio/segments.ts';
import { readWav } from '../../../src/media/wav.ts';
import { FFMPEG, ffmpegSampleCount, fixturePath, NO_FFMPEG, rms } from './audio-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'herald-long-audio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Discord-style voice note of about 4.4 minutes: the speech fixture with 0.6 s pauses, 34 times over. */
function makeLongVoiceNote(): { bytes: Uint8Array; seconds: number } {
  const unit = join(dir, 'unit.wav');
  const note = join(dir, 'long.ogg');
  const ff = (...args: string[]) => execFileSync(FFMPEG!, ['-nostdin', '-v', 'error', '-y', ...args]);
  ff('-i', fixturePath('speech-flac.ogg'), '-af', 'apad=pad_dur=0.6', '-ar', '48000', '-ac', '1', unit);
  ff('-stream_loop', '33', '-i', unit, '-c:a', 'libopus', '-b:a', '24k', '-application', 'voip', '-compression_level', '0', note);
  const seconds = ffmpegSampleCount(note, { libopus: true }) / 48000;
  return { bytes: new Uint8Array(readFileSync(note)), seconds };
}

describe('a voice note too long for one request', () => {
  let note: { bytes: Uint8Array; seconds: number } | undefined;
  let prepared: PreparedAudio | undefined;
  const setup = async () => {
    note ??= makeLongVoiceNote();
    prepared ??= await prepareAudioForAsr(note.bytes);
    return { note, prepared };
  };

  it('is split into segments whose data URLs each stay within 10 MiB', async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const { note, prepared } = await setup();
    expect(note.seconds).toBeGreaterThan(250);
    expect(dataUrlLength('audio/wav', 44 + 32000 * note.seconds)).toBeGreaterThan(DEFAULT_MAX_BASE64_BYTES);
    expect(prepared.segments).toHaveLength(2);
    for (const segment of prepared.segments) {
      expect(dataUrlLength(segment.mime, segment.data.length)).toBeLessThanOrEqual(DEFAULT_MAX_BASE64_BYTES);
    }
  }, 60_000);

  it('keeps the whole duration, in order', async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const { note, prepared } = await setup();
    expect(Math.abs(prepared.durationSeconds - note.seconds)).toBeLessThan(1 / 16000);
    expect(prepared.segments[0]!.startSeconds).toBe(0);
    expect(prepared.segments[1]!.startSeconds).toBeCloseTo(prepared.segments[0]!.durationSeconds, 9);
    const total = prepared.segments.reduce((sum, s) => sum + s.durationSeconds, 0);
    expect(total).toBeCloseTo(prepared.durationSeconds, 9);
    const text = await transcribeSegments(prepared.segments, async (s) => `[${s.startSeconds.toFixed(1)}]`, { concurrency: 2 });
    expect(text).toBe(prepared.segments.map((s) => `[${s.startSeconds.toFixed(1)}]`).join(' '));
  }, 60_000);

  it('cuts in a pause between sentences, not inside a word', async (ctx) => {
    if (!FFMPEG) ctx.skip(NO_FFMPEG);
    const { prepared } = await setup();
    const first = readWav(prepared.segments[0]!.data).channels[0]!;
    const second = readWav(prepared.segments[1]!.data).channels[0]!;
    const edge = rms(first, first.length - 800) + rms(second, 0, 800);
    expect(edge).toBeLessThan(0.05 * rms(first));
  }, 60_000);
});
