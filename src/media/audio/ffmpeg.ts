import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { MediaError } from '../../errors.ts';
import { ASR_SAMPLE_RATE, tooLong } from './normalize.ts';

/** The ffmpeg executable on the search path (PATH syntax), if there is one. */
export function locateFfmpeg(searchPath: string): string | undefined {
  const name = process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg';
  for (const dir of searchPath.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

export interface FfmpegOptions {
  /** Use this executable instead of searching. */
  ffmpegPath?: string;
  /** Directories to search for ffmpeg, in PATH syntax (the entry point passes the process's PATH). */
  searchPath?: string;
  maxDurationSeconds?: number;
  /** Kill a conversion that runs longer than this. Default 120 s. */
  timeoutMs?: number;
}

function missing(label: string): MediaError {
  return new MediaError(
    `Herald needs ffmpeg to read ${label} audio, and ffmpeg is not installed where Herald runs. ` +
      'Please ask the bot operator to install ffmpeg (for example `apt install ffmpeg`), or send the audio as MP3, WAV or an Ogg/Opus voice message.',
    { code: 'ffmpeg_missing' },
  );
}

function failure(label: string, code: number | null, stderr: string): MediaError {
  if (/matches no streams|does not contain any stream/i.test(stderr)) {
    return new MediaError(`This ${label} file has no sound track to transcribe.`, { code: 'unsupported_format' });
  }
  if (/Invalid data found|moov atom not found|could not find codec parameters|Invalid argument|error while decoding/i.test(stderr)) {
    return new MediaError(`This ${label} file is damaged and could not be decoded.`, { code: 'corrupt', cause: stderr.trim() });
  }
  return new MediaError(`Herald could not convert this ${label} audio (ffmpeg exited with code ${code}).`, {
    code: 'conversion_failed',
    cause: stderr.trim(),
  });
}

/**
 * Decodes any container ffmpeg understands to 16 kHz mono 16-bit samples. The input goes through a
 * temporary file rather than a pipe: MP4/M4A from phones often keeps its index (moov) at the end,
 * which ffmpeg can only reach by seeking.
 */
export async function ffmpegToMonoPcm(bytes: Uint8Array, label: string, options: FfmpegOptions = {}): Promise<Int16Array> {
  const executable = options.ffmpegPath ?? locateFfmpeg(options.searchPath ?? '');
  if (!executable) throw missing(label);
  const maxSeconds = options.maxDurationSeconds ?? Infinity;
  const maxBytes = maxSeconds * ASR_SAMPLE_RATE * 2;
  const dir = await mkdtemp(join(tmpdir(), 'herald-audio-'));
  try {
    const input = join(dir, 'input');
    await writeFile(input, bytes);
    const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, '-map', '0:a:0', '-vn', '-sn', '-dn'];
    args.push('-ac', '1', '-ar', String(ASR_SAMPLE_RATE), '-c:a', 'pcm_s16le', '-f', 's16le', 'pipe:1');
    const output = await new Promise<Buffer>((resolve, reject) => {
      const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const chunks: Buffer[] = [];
      let size = 0;
      let stderr = '';
      let settled = false;
      const finish = (error: MediaError | undefined, value?: Buffer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          child.kill('SIGKILL');
          reject(error);
        } else {
          resolve(value!);
        }
      };
      const timer = setTimeout(
        () => finish(new MediaError(`Converting this ${label} audio took too long; Herald gave up.`, { code: 'conversion_failed' })),
        options.timeoutMs ?? 120_000,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) finish(tooLong(maxSeconds));
        else chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 16_384) stderr += chunk.toString();
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        finish(error.code === 'ENOENT' || error.code === 'EACCES' ? missing(label) : failure(label, null, String(error)));
      });
      child.on('close', (code) => {
        if (code === 0) finish(undefined, Buffer.concat(chunks));
        else finish(failure(label, code, stderr));
      });
    });
    const samples = new Int16Array(output.length >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = output.readInt16LE(i * 2);
    if (samples.length === 0) throw new MediaError('The audio file contains no sound to transcribe.', { code: 'empty' });
    return samples;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
