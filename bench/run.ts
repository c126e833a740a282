import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each bench/*.bench.ts exports run(); they run one after another so they do not disturb each other. */
interface BenchModule {
  run(): Promise<{ markdown: string }>;
}

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const sections: string[] = [];
let failed = false;
for (const file of files) {
  const started = performance.now();
  process.stderr.write(`bench: ${file} …\n`);
  try {
    const mod = (await import(join(here, file))) as BenchModule;
    const { markdown } = await mod.run();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    sections.push(`${markdown.trim()}\n\n_${file}, ${seconds} s_`);
  } catch (error) {
    failed = true;
    sections.push(`## ${file}\n\nFailed: ${(error as Error).message}`);
    process.stderr.write(`bench: ${file} failed: ${(error as Error).stack}\n`);
  }
}

const header = [
  '# Benchmark results',
  '',
  `Run ${new Date().toISOString()} with \`npm run bench\` on Node ${process.version}, ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB.`,
  'Every comparison is measured side by side in the same run.',
].join('\n');
const out = `${header}\n\n${sections.join('\n\n')}\n`;
if (only.length === 0) writeFileSync(join(here, 'RESULTS.md'), out);
process.stdout.write(out);
process.exitCode = failed ? 1 : 0;
