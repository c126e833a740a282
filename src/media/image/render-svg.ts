import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { MediaError } from '../../errors.ts';

const CHILD = fileURLToPath(new URL('./svg-render-child.ts', import.meta.url));
/** Longest an SVG may take to render: ordinary drawings take well under a second. */
const SVG_RENDER_TIMEOUT_MS = 5_000;
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;
const RENDERER_NICENESS = 10;

/**
 * Renders an SVG to PNG at `density` (dots per inch; 72 keeps its stated size) in a child process, killed when
 * it runs too long or writes too much: the child may be killed mid-render, which a thread running sharp may not.
 */
export function renderSvg(svg: Buffer, density: number, tooSlow: () => MediaError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD, String(density)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // It parses a stranger's file: it gets none of Herald's keys and tokens.
      env: {},
    });
    // A slow drawing runs on while the bot answers others: it gets what CPU they leave.
    if (child.pid !== undefined) setPriority(child.pid, RENDERER_NICENESS);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(tooSlow())), SVG_RENDER_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) settle(() => reject(tooSlow()));
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    child.on('error', (error) => settle(() => reject(error)));
    child.on('close', (code) => {
      if (code === 0) settle(() => resolve(Buffer.concat(chunks)));
      else settle(() => reject(new Error(stderr.trim() || `SVG renderer exited with code ${code}`)));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(svg);
  });
}
