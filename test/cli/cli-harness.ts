import { PassThrough } from 'node:stream';
import { main } from '../../adapters/cli/main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the herald command line in-process with its own environment and captured output. */
export async function runCli(argv: string[], env: Record<string, string>, input = ''): Promise<CliRun> {
  const out = new PassThrough();
  const err = new PassThrough();
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (chunk) => (stdout += chunk));
  err.on('data', (chunk) => (stderr += chunk));
  stdin.end(input);
  const code = await main(argv, { ...env }, { in: stdin, out, err });
  return { code, stdout, stderr };
}
