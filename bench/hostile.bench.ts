import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pdfFile } from '../test/fixtures/documents/pdf-file.ts';
import { startEmulator } from '../test/fakes/service/emulator.ts';
import { bombs } from '../test/hostile/corpus.ts';

/** A measurement is given up (and shown as such) past this. */
const CHILD_TIMEOUT_MS = 240_000;
const PEAK_RSS_GOAL_MB = 600;
const STALL_GOAL_MS = 50;

interface Case {
  label: string;
  names: string[];
}

interface Measurement {
  ms: number;
  longestStallMs: number;
  peakRssMb: number;
  shown: string;
}

/**
 * The same corpus through commit 1afb116 (the code before the hostile-input work), measured once on 2026-11-26 in
 * a throwaway worktree of that commit on this machine; absent where it ran past the time limit.
 */
const BEFORE: Record<string, Measurement> = {
  'rle-bomb.bmp': { peakRssMb: 1952, longestStallMs: 6829, ms: 10946, shown: 'I see 1 image.' },
  'screen-bomb.gif': { peakRssMb: 170, longestStallMs: 17, ms: 34, shown: 'sent on unchanged' },
  'strip-bomb.tif': { peakRssMb: 195, longestStallMs: 38, ms: 1134, shown: 'converted to a picture' },
  'size-bomb.heic': { peakRssMb: 174, longestStallMs: 471, ms: 619, shown: 'damaged (and a debug object on stdout)' },
  'size-bomb.avif': { peakRssMb: 190, longestStallMs: 29, ms: 113, shown: 'damaged' },
  'image-bomb.pdf': { peakRssMb: 2866, longestStallMs: 5521, ms: 14052, shown: 'page 1 sent as a picture' },
  'rate-lie.wav': { peakRssMb: 312, longestStallMs: 5513, ms: 5536, shown: 'transcribed' },
  'length-lie.wav': { peakRssMb: 160, longestStallMs: 30, ms: 81, shown: 'transcribed' },
  'channel-lie.ogg': { peakRssMb: 162, longestStallMs: 23, ms: 46, shown: 'damaged' },
  'channel-bomb.ogg': { peakRssMb: 1182, longestStallMs: 5494, ms: 5579, shown: 'transcribed' },
  'rate-lie.webm': { peakRssMb: 160, longestStallMs: 94, ms: 161, shown: 'transcribed' },
  'ten RLE BMP bombs in one message': { peakRssMb: 9153, longestStallMs: 113_385, ms: 137_662, shown: 'too many tokens' },
};

function cases(): Case[] {
  const single = bombs().map((file) => ({ label: file.name, names: [file.name] }));
  return [...single, { label: 'ten RLE BMP bombs in one message', names: Array(10).fill('rle-bomb.bmp') as string[] }];
}

/** One case in a fresh child process, so that its peak RSS is its own. */
function measure(root: string, serviceUrl: string, apiKey: string, warmUp: string[], paths: string[]): Promise<Measurement | undefined> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', join(root, 'bench', 'hostile-child.ts'), serviceUrl, apiKey, warmUp.join(','), ...paths],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('close', () => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').at(-1);
      resolve(line ? (JSON.parse(line) as Measurement) : undefined);
    });
  });
}

const mb = (value: number) => `${Math.round(value)} MB`;
const ms = (value: number) =>
  value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;

/** The cases (all, or those named in `only`) through the code in `root` (this worktree by default). */
export async function measureAll(root = join(import.meta.dirname, '..'), only?: string[]): Promise<Map<string, Measurement | undefined>> {
  const emu = await startEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'herald-hostile-bench-'));
  const results = new Map<string, Measurement | undefined>();
  try {
    for (const file of bombs()) writeFileSync(join(dir, file.name), file.bytes);
    // Ordinary files of each kind, read first in every process so that the libraries are loaded.
    const fixtures = join(import.meta.dirname, '..', 'test', 'fixtures');
    const warmUp = [
      join(fixtures, 'images', 'marker.png'),
      join(fixtures, 'images', 'marker.bmp'),
      join(fixtures, 'audio', 'tone-s16le.wav'),
      join(dir, 'warm.pdf'),
    ];
    writeFileSync(warmUp[3]!, pdfFile([['An ordinary page']]));
    for (const { label, names } of cases().filter((c) => !only || only.includes(c.label))) {
      process.stderr.write(`bench: hostile ${label} …\n`);
      results.set(
        label,
        await measure(
          root,
          emu.url,
          emu.apiKey,
          warmUp,
          names.map((name) => join(dir, name)),
        ),
      );
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

export async function run(): Promise<{ markdown: string }> {
  const results = await measureAll();
  const rows = cases().map(({ label }) => {
    const now = results.get(label);
    const before = BEFORE[label];
    const then = before
      ? `${before.shown}: ${mb(before.peakRssMb)}, ${ms(before.longestStallMs)}, ${ms(before.ms)}`
      : `over ${CHILD_TIMEOUT_MS / 1000} s`;
    if (!now) return `| ${label} | — | over ${CHILD_TIMEOUT_MS / 1000} s | | | ${then} |`;
    return `| ${label} | ${now.shown.replace(/\|/g, '\\|')} | ${mb(now.peakRssMb)} | ${ms(now.longestStallMs)} | ${ms(now.ms)} | ${then} |`;
  });
  const measured = [...results.values()].filter((m): m is Measurement => m !== undefined);
  const worstRss = Math.max(...measured.map((m) => m.peakRssMb));
  const worstStall = Math.max(...measured.map((m) => m.longestStallMs));
  const markdown = [
    '## Hostile inputs: decompression bombs and lying headers',
    '',
    'Each input is sent with `herald chat --file` in a fresh process (the service emulator answers), so peak RSS is',
    "that process's own. Longest stall: the longest the event loop went without a turn while Herald worked.",
    `Goals: peak RSS at most ${PEAK_RSS_GOAL_MB} MB for any input and for a message of ten, stalls at most ${STALL_GOAL_MS} ms.`,
    'The 1afb116 column (outcome: peak RSS, longest stall, time) was measured once, on 2026-11-26, with the same corpus',
    'and harness in a throwaway worktree of commit 1afb116, the code before this work.',
    '',
    '| Input | What Herald says | Peak RSS | Longest stall | Time | 1afb116 |',
    '| --- | --- | ---: | ---: | ---: | --- |',
    ...rows,
    '',
    `Worst now: ${mb(worstRss)} peak RSS (goal ${PEAK_RSS_GOAL_MB} MB), ${ms(worstStall)} stall (goal ${STALL_GOAL_MS} ms).`,
  ].join('\n');
  return { markdown };
}
