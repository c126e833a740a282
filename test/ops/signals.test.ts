import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./fixtures/shutdown-child.ts', import.meta.url));

interface Run {
  port: number;
  signal(name: NodeJS.Signals): number;
  /** Resolves once the child has printed a line matching `line`. */
  printed(line: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string; exitedAt: number }>;
}

async function run(scenario: string, timeoutMs: number): Promise<Run> {
  const proc = spawn(process.execPath, [child, scenario, String(timeoutMs)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const onOutput = new Set<() => void>();
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    for (const check of [...onOutput]) check();
  });
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string; exitedAt: number }>((resolve) =>
    proc.on('exit', (code) => resolve({ code, stdout, stderr, exitedAt: performance.now() })),
  );
  const printed = (line: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = line.exec(stdout);
        if (!match) return;
        onOutput.delete(check);
        resolve(match);
      };
      onOutput.add(check);
      check();
      void exited.then(() => reject(new Error(`child exited before printing ${line}:\n${stderr}`)));
    });
  const port = Number((await printed(/^port (\d+)$/m))[1]);
  return {
    port,
    exited,
    printed: async (line) => {
      await printed(line);
    },
    signal(name) {
      proc.kill(name);
      return performance.now();
    },
  };
}

function events(stdout: string): { ms: number; name: string }[] {
  return [...stdout.matchAll(/^event (\d+) (.+)$/gm)].map((m) => ({ ms: Number(m[1]), name: m[2]! }));
}

describe.concurrent('installSignalHandlers', () => {
  it('on SIGTERM lets the reply finish, closes everything in order and exits 0', async () => {
    const herald = await run('clean', 3000);
    const sentAt = herald.signal('SIGTERM');
    const { code, stdout, exitedAt } = await herald.exited;
    expect(code).toBe(0);
    expect(events(stdout).map((e) => e.name)).toEqual(['draining', 'platform closed', 'http closed']);
    expect(events(stdout)[1]!.ms).toBeGreaterThanOrEqual(290);
    expect(exitedAt - sentAt).toBeLessThan(2000);
  });

  it('reports not ready but alive while draining', async () => {
    const herald = await run('stuck', 1500);
    const base = `http://127.0.0.1:${herald.port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    herald.signal('SIGTERM');
    await herald.printed(/^event \d+ draining$/m);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ reasons: ['shutting down'] });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await herald.exited).code).toBe(1);
  });

  it('interrupts a long reply near the bound and still exits 0', async () => {
    const herald = await run('interrupt', 1000);
    herald.signal('SIGTERM');
    const { code, stdout } = await herald.exited;
    expect(code).toBe(0);
    const interrupted = events(stdout).find((e) => e.name === 'reply interrupted');
    expect(interrupted?.ms).toBeGreaterThanOrEqual(600);
    expect(interrupted?.ms).toBeLessThan(900);
  });

  it('gives up on work that never ends within the bound and exits 1, although a timer would keep it alive', async () => {
    const herald = await run('stuck', 800);
    const sentAt = herald.signal('SIGTERM');
    const { code, exitedAt, stderr } = await herald.exited;
    expect(code).toBe(1);
    // Replies get until the bound minus half the reserve (800 - 140 ms); closing takes the rest at most.
    expect(exitedAt - sentAt).toBeGreaterThanOrEqual(640);
    expect(exitedAt - sentAt).toBeLessThan(1300);
    expect(stderr).toContain('reply (stuck)');
  });

  it('exits at once with 128 + signal number on a second signal', async () => {
    const herald = await run('stuck', 10_000);
    herald.signal('SIGTERM');
    await herald.printed(/^event \d+ draining$/m);
    const secondAt = herald.signal('SIGINT');
    const { code, exitedAt, stderr } = await herald.exited;
    expect(code).toBe(130);
    expect(exitedAt - secondAt).toBeLessThan(1000);
    expect(stderr).toContain('second signal');
  });
});
