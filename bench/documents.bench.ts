import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDocuments } from '../src/conversation/document-input.ts';
import { readDocument } from '../src/media/document/read-document.ts';
import { pdfFile } from '../test/fixtures/documents/pdf-file.ts';
import { watchStalls } from './stall-watch.ts';
import { median } from './stats.ts';

const PAGES = 300;
const LINES_PER_PAGE = 40;
const LOG_BYTES = 15_000_000;
/** Half of the default CONTEXT_TOKENS: what the files of one message may take. */
const BUDGET_TOKENS = 16_000;
const RUNS = 5;

interface Timing {
  wallMs: number;
  cpuMs: number;
  /** The longest the event loop went without a turn while the task ran. */
  longestStallMs: number;
}

/** Times a task while a 1 ms timer notes the longest gap between its turns (the bot's other work waits that long). */
async function timeIt(task: () => Promise<unknown>): Promise<Timing> {
  const stalls = watchStalls();
  const cpu = process.cpuUsage();
  const started = performance.now();
  await task();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, longestStallMs: stalls.stop() };
}

function pdftotextMs(path: string): number | undefined {
  try {
    const started = performance.now();
    execFileSync('pdftotext', [path, '-'], { stdio: ['ignore', 'ignore', 'ignore'] });
    return performance.now() - started;
  } catch {
    return undefined;
  }
}

function logFile(): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < LOG_BYTES; i++) {
    const line = `2026-11-25T17:00:${String(i % 60).padStart(2, '0')}Z INFO request id=${i} path=/api/v1/items status=200 took=${i % 97}ms\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

export async function run(): Promise<{ markdown: string }> {
  const title = '## Documents: reading attached files';
  const pages = Array.from({ length: PAGES }, (_, p) =>
    Array.from({ length: LINES_PER_PAGE }, (_, l) => `Page ${p + 1}, line ${l + 1}: the quick brown fox jumps over the lazy dog.`),
  );
  const pdf = pdfFile(pages);
  const log = logFile();
  const dir = mkdtempSync(join(tmpdir(), 'herald-documents-bench-'));
  try {
    const pdfPath = join(dir, 'report.pdf');
    writeFileSync(pdfPath, pdf);
    const first = await timeIt(() => readDocument('report.pdf', pdf));
    const wholePdf: Timing[] = [];
    const pdfForMessage: Timing[] = [];
    const logForMessage: Timing[] = [];
    const reference: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      wholePdf.push(await timeIt(() => readDocument('report.pdf', pdf)));
      pdfForMessage.push(await timeIt(() => readDocuments([{ name: 'report.pdf', data: pdf }], BUDGET_TOKENS)));
      logForMessage.push(await timeIt(() => readDocuments([{ name: 'server.log', data: log }], BUDGET_TOKENS)));
      const ms = pdftotextMs(pdfPath);
      if (ms !== undefined) reference.push(ms);
    }
    const row = (name: string, timings: Timing[]) =>
      `| ${name} | ${median(timings.map((t) => t.wallMs)).toFixed(0)} | ${median(timings.map((t) => t.cpuMs)).toFixed(0)} | ` +
      `${median(timings.map((t) => t.longestStallMs)).toFixed(0)} |`;
    const markdown = [
      title,
      '',
      `A ${PAGES}-page PDF (${LINES_PER_PAGE} lines a page, ${(pdf.length / 2 ** 20).toFixed(1)} MiB) and a ${(log.length / 1e6).toFixed(0)} MB log file, ` +
        `read as attachments of one message whose files may take ${BUDGET_TOKENS.toLocaleString('en-US')} tokens (half the default CONTEXT_TOKENS). ` +
        `Medians of ${RUNS} runs, started from Node's main thread (a PDF is read on a media worker, which the CPU column ` +
        "includes; text is read in place), where the bot's other work waits while a read holds the event loop: " +
        'the last column is the longest it went without a turn (a 1 ms timer).',
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} on ${availableParallelism()} CPUs.`,
      '',
      '| task | wall ms | CPU ms | longest event-loop stall, ms |',
      '|---|---:|---:|---:|',
      row(`Herald \`readDocument\`, the whole PDF (all ${PAGES} pages)`, wholePdf),
      row('Herald `readDocuments` for a message: the PDF, read until more than fits, fitted and cut', pdfForMessage),
      row('Herald `readDocuments` for a message: the log file, decoded, fitted and cut', logForMessage),
      reference.length > 0
        ? `| reference: \`pdftotext report.pdf -\` (poppler, a process of its own), the whole PDF | ${median(reference).toFixed(0)} | | |`
        : '| reference: `pdftotext` (poppler-utils) is not installed | | | |',
      '',
      `First PDF in the process, including loading pdf.js: ${first.wallMs.toFixed(0)} ms wall, longest stall ${first.longestStallMs.toFixed(0)} ms.`,
    ].join('\n');
    return { markdown };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
