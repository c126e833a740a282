import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAudio } from '../src/media/audio/decode-audio.ts';
import { locateFfmpeg } from '../src/media/audio/ffmpeg.ts';
import { normalizeToWav } from '../src/media/audio/normalize.ts';
import { prepareAudioForAsr } from '../src/media/audio/prepare-audio.ts';
import { opusBackend } from '../src/media/opus-backend.ts';
import { median } from './stats.ts';

const SECONDS = 60;
const RUNS = 9;
const GOAL_REALTIME = 300;
const GOAL_VS_FFMPEG = 2;

/** A Discord-style voice note: 48 kHz mono Opus, speech with pauses, SECONDS long. */
function makeVoiceNote(ffmpeg: string, dir: string): Uint8Array {
  const speech = fileURLToPath(new URL('../test/fixtures/audio/speech-flac.ogg', import.meta.url));
  const note = join(dir, 'note.ogg');
  execFileSync(ffmpeg, [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-stream_loop',
    '-1',
    '-i',
    speech,
    '-af',
    'apad=pad_dur=0.5',
    '-t',
    String(SECONDS),
    '-ar',
    '48000',
    '-ac',
    '1',
    '-c:a',
    'libopus',
    '-b:a',
    '32k',
    '-application',
    'voip',
    note,
  ]);
  return new Uint8Array(readFileSync(note));
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

/** ffmpeg, one thread, decoding the note to a 16 kHz mono WAV on stdout; CPU time from its own -benchmark report. */
function timeFfmpeg(ffmpeg: string, note: string): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const args = ['-nostdin', '-hide_banner', '-nostats', '-benchmark', '-threads', '1', '-i', note, '-ar', '16000', '-ac', '1', '-f', 'wav', '-'];
    const started = performance.now();
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const cpu = /utime=([\d.]+)s stime=([\d.]+)s/.exec(stderr);
      if (code !== 0 || !cpu) reject(new Error(`ffmpeg exited ${code}: ${stderr.slice(-300)}`));
      else resolve({ wallMs, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 });
    });
  });
}

async function timeIt(task: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await task();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

export async function run(): Promise<{ markdown: string }> {
  const title = '## Audio input: Ogg Opus voice note to 16 kHz mono WAV';
  const ffmpeg = locateFfmpeg(process.env.PATH ?? '');
  if (!ffmpeg) return { markdown: `${title}\n\nSkipped: ffmpeg is not on PATH (needed to make the voice note and as the baseline).` };
  const dir = mkdtempSync(join(tmpdir(), 'herald-audio-bench-'));
  try {
    const bytes = makeVoiceNote(ffmpeg, dir);
    const notePath = join(dir, 'note.ogg');

    const firstCall = await timeIt(() => prepareAudioForAsr(bytes));
    await prepareAudioForAsr(bytes, { opusBackend: 'wasm' });
    const ours: Timing[] = [];
    const oursWasm: Timing[] = [];
    const ours48k: Timing[] = [];
    const baseline: Timing[] = [];
    // Interleaved so that load from elsewhere on the machine hits all four alike.
    for (let i = 0; i < RUNS; i++) {
      ours.push(await timeIt(() => prepareAudioForAsr(bytes)));
      oursWasm.push(await timeIt(() => prepareAudioForAsr(bytes, { opusBackend: 'wasm' })));
      ours48k.push(await timeIt(async () => normalizeToWav(await decodeAudio(bytes, 'ogg-opus'))));
      baseline.push(await timeFfmpeg(ffmpeg, notePath));
    }
    const backend = opusBackend();
    const libopus = backend === 'native' ? 'native libopus (@discordjs/opus)' : 'libopus wasm (@discordjs/opus is not installed)';
    const summary = (timings: Timing[]) => ({ wallMs: median(timings.map((t) => t.wallMs)), cpuMs: median(timings.map((t) => t.cpuMs)) });
    const oursMedian = summary(ours);
    const ffmpegMedian = summary(baseline);
    const realtime = (ms: number) => (SECONDS * 1000) / ms;
    const row = (name: string, t: Timing) =>
      `| ${name} | ${t.wallMs.toFixed(0)} | ${realtime(t.wallMs).toFixed(0)}× | ${(t.wallMs / ffmpegMedian.wallMs).toFixed(2)} | ` +
      `${t.cpuMs.toFixed(0)} | ${realtime(t.cpuMs).toFixed(0)}× | ${(t.cpuMs / ffmpegMedian.cpuMs).toFixed(2)} |`;
    const verdict = (measure: keyof Timing) => {
      const speed = realtime(oursMedian[measure]);
      const ratio = oursMedian[measure] / ffmpegMedian[measure];
      const met = (ok: boolean) => (ok ? 'met' : '**not met**');
      return `≥ ${GOAL_REALTIME}× real time ${met(speed >= GOAL_REALTIME)} (${speed.toFixed(0)}×), within ${GOAL_VS_FFMPEG}× of ffmpeg ${met(ratio <= GOAL_VS_FFMPEG)} (${ratio.toFixed(2)}×)`;
    };
    const markdown = [
      title,
      '',
      `A ${SECONDS} s voice note (48 kHz mono Opus at 32 kbit/s, ${(bytes.length / 1024).toFixed(0)} KiB) decoded to a 16 kHz mono 16-bit WAV.`,
      `Medians of ${RUNS} interleaved runs on one core (Node's main thread; ffmpeg with \`-threads 1\`, process start included in its wall time).`,
      `CPU time is user + system (ours from process.cpuUsage, ffmpeg's from its -benchmark report); it is the fairer measure when the machine is busy.`,
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} on ${availableParallelism()} CPUs.`,
      '',
      '| pipeline | wall ms | × real time | vs ffmpeg | CPU ms | × real time | vs ffmpeg |',
      '|---|---:|---:|---:|---:|---:|---:|',
      row(`Herald \`prepareAudioForAsr\` (${libopus} renders 16 kHz directly)`, oursMedian),
      row('Herald `prepareAudioForAsr` with the fallback for machines without the native build, libopus wasm', summary(oursWasm)),
      row(`Herald, ${backend} libopus at 48 kHz + our windowed-sinc resampler`, summary(ours48k)),
      row('`ffmpeg -i note.ogg -ar 16000 -ac 1 -f wav -`', ffmpegMedian),
      '',
      `First call, including the lazy load of the decoder: ${firstCall.wallMs.toFixed(0)} ms wall.`,
      '',
      `Goals by wall time: ${verdict('wallMs')}.`,
      `Goals by CPU time: ${verdict('cpuMs')}.`,
    ].join('\n');
    return { markdown };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
