import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { locateFfmpeg } from '../../../src/media/audio/ffmpeg.ts';

const dir = fileURLToPath(new URL('../../fixtures/audio/', import.meta.url));

export function fixturePath(name: string): string {
  return dir + name;
}

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(dir + name));
}

/** ffmpeg on PATH, or undefined; tests that need it skip with this reason. */
export const FFMPEG = locateFfmpeg(process.env.PATH ?? '');
export const NO_FFMPEG = 'ffmpeg is not on PATH (CI installs it)';

/** Mono float samples as ffmpeg decodes them; `libopus` forces the libopus decoder, the reference for Opus. */
export function ffmpegDecode(path: string, options: { libopus?: boolean; rate?: number } = {}): Float32Array {
  const args = ['-nostdin', '-v', 'error', ...(options.libopus ? ['-c:a', 'libopus'] : []), '-i', path, '-ac', '1'];
  if (options.rate) args.push('-ar', String(options.rate));
  const out = execFileSync(FFMPEG!, [...args, '-f', 'f32le', '-'], { maxBuffer: 1 << 30 });
  return new Float32Array(out.buffer, out.byteOffset, out.length / 4);
}

/** How many mono samples ffmpeg decodes (libopus for Opus), counted as cheaply as possible (8-bit output). */
export function ffmpegSampleCount(path: string, options: { libopus?: boolean } = {}): number {
  const args = ['-nostdin', '-v', 'error', ...(options.libopus ? ['-c:a', 'libopus'] : []), '-i', path, '-ac', '1'];
  return execFileSync(FFMPEG!, [...args, '-c:a', 'pcm_u8', '-f', 'u8', '-'], { maxBuffer: 1 << 30 }).length;
}

export function rms(samples: ArrayLike<number>, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
}
