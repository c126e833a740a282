/**
 * One hostile-input measurement in a process of its own (see hostile.bench.ts): `herald chat --file …` with the
 * files given, in-process, against the service at argv[2]. A first run with ordinary files (argv[4], comma
 * separated) loads what a running bot has loaded, so that what is measured is the input's cost, not start-up.
 * Prints one JSON line: peak RSS (the kernel's high-water mark), the longest event-loop stall while Herald
 * worked, the time, and the first line Herald showed.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { main } from '../adapters/cli/main.ts';
import { watchStalls } from './stall-watch.ts';

const [serviceUrl, apiKey, warmUp, ...paths] = process.argv.slice(2);
const env = { API_BASE_URL: serviceUrl!, API_KEY: apiKey!, THINKING: 'off', WEB_SEARCH: 'off', PATH: process.env.PATH ?? '' };

/** Herald's answer and, apart, its notes and errors. */
async function chat(files: string[]): Promise<{ code: number; answer: string; notes: string }> {
  let answer = '';
  let notes = '';
  const out = new PassThrough();
  const err = new PassThrough();
  out.on('data', (chunk) => (answer += chunk));
  err.on('data', (chunk) => (notes += chunk));
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(['chat', 'what is in this?', ...files.flatMap((path) => ['--file', path])], env, { in: stdin, out, err });
  return { code, answer, notes };
}

/** VmHWM: unlike getrusage's maxRSS, it starts afresh in a new program instead of carrying the parent's. */
function peakRssMb(): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Number(kb) / 1024;
}

await chat(warmUp!.split(','));

const stalls = watchStalls();
const started = performance.now();
const { code, answer, notes } = await chat(paths);
const ms = performance.now() - started;
const longestStallMs = stalls.stop();
const lines = [...notes.split('\n'), ...answer.split('\n').filter((line) => !line.startsWith('Echo:'))];
const shown = lines.find((line) => line.trim() !== '') ?? '';
process.stdout.write(`${JSON.stringify({ code, ms, longestStallMs, peakRssMb: peakRssMb(), shown: shown.slice(0, 160) })}\n`);
process.exit(0);
