import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../adapters/cli/main.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { runCli } from './cli-harness.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

const env = () => ({ API_BASE_URL: emu.url, API_KEY: emu.apiKey, THINKING: 'off', WEB_SEARCH: 'off', TOOLS_MODULE: TOOLS, STORE_URL: 'memory://' });

/** Lines typed into the shell, and what it shows, as they come. */
function shell() {
  const keys = new PassThrough();
  const out = new PassThrough();
  const err = new PassThrough();
  const shown = { out: '', err: '' };
  out.on('data', (chunk) => (shown.out += chunk));
  err.on('data', (chunk) => (shown.err += chunk));
  const until = (stream: 'out' | 'err', test: (text: string) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!test(shown[stream])) return;
        (stream === 'out' ? out : err).off('data', check);
        resolve();
      };
      (stream === 'out' ? out : err).on('data', check);
      check();
    });
  const exit = main([], env(), { in: keys, out, err });
  return { type: (text: string) => keys.write(text), end: () => keys.end(), until, shown, exit };
}

describe('herald: approving a tool call in the terminal', () => {
  it('the shell asks y/N with the tool and its arguments: y runs it, anything else does not', async () => {
    const terminal = shell();
    terminal.type('call post_note {"text":"hello"}\n');
    await terminal.until('err', (text) => text.includes('Run it? [y/N] '));
    expect(terminal.shown.err).toContain('Herald wants to run notes · post with:\n{\n  "text": "hello"\n}\n');
    terminal.type('y\n');
    await terminal.until('out', (text) => text.includes('post_note: posted hello'));
    await terminal.until('err', (text) => text.includes('Approved.'));

    // Two calls in one round ask one after the other.
    terminal.type('call post_note {"text":"one"} call post_note {"text":"two"}\n');
    await terminal.until('err', (text) => text.split('Run it? [y/N] ').length === 3);
    const [approved, denied] = terminal.shown.err.split('Run it?').at(-2)!.includes('"one"') ? ['one', 'two'] : ['two', 'one'];
    terminal.type('yes\n');
    await terminal.until('err', (text) => text.split('Run it? [y/N] ').length === 4);
    expect(terminal.shown.err.split('Run it?').at(-2)).toContain(`"text": "${denied}"`);
    terminal.type('\n');
    await terminal.until('out', (text) => text.includes('post_note: The asker denied this call. It was not run.'));
    expect(terminal.shown.out).toContain(`post_note: posted ${approved}`);
    expect(terminal.shown.out).not.toContain(`posted ${denied}`);
    terminal.end();
    expect(await terminal.exit).toBe(0);
  });

  it('herald chat cannot ask anyone: the tool is not run and the model is told', async () => {
    const run = await runCli(['chat', 'call post_note {"text":"unasked"}'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("post_note: Error: this tool needs the asker's approval, and there is no way to ask for it here. It was not run.");
    expect(run.stdout).not.toContain('posted unasked');
  });
});
