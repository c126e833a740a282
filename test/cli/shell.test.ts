import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../adapters/cli/main.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';

let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterEach(() => {
  emu.pace.tokensPerSecond = 0;
  emu.reset();
});
afterAll(async () => {
  await emu.close();
});

/** What a terminal sends and shows: keys typed (Ctrl-C as the byte 0x03), stdout and stderr as they grow. */
class Terminal {
  readonly keys = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode(mode: boolean): void };
  readonly out = new PassThrough();
  readonly err = new PassThrough();
  stdout = '';
  stderr = '';

  constructor() {
    this.keys.isTTY = true;
    this.keys.setRawMode = () => {};
    this.out.on('data', (chunk) => (this.stdout += chunk));
    this.err.on('data', (chunk) => (this.stderr += chunk));
  }

  /** Runs `herald` with no command and no platform token: the chat shell. Resolves with its exit code. */
  run(env: Record<string, string>): Promise<number> {
    return main([], env, { in: this.keys, out: this.out, err: this.err });
  }

  type(keys: string): void {
    this.keys.write(keys);
  }

  /** Resolves once the stream's text so far satisfies `test`. */
  until(stream: 'out' | 'err', test: (text: string) => boolean): Promise<void> {
    const text = () => (stream === 'out' ? this.stdout : this.stderr);
    return new Promise((resolve) => {
      const check = () => {
        if (!test(text())) return;
        this[stream].off('data', onData);
        resolve();
      };
      // Listeners run in order: the constructor's (which appends) before this one.
      const onData = () => check();
      this[stream].on('data', onData);
      check();
    });
  }
}

const env = () => ({ API_BASE_URL: emu.url, API_KEY: emu.apiKey, API_AUTH: 'bearer', API_FORMAT: 'chat', THINKING: 'off', WEB_SEARCH: 'off' });
const chatRequests = () => emu.requests.filter((r) => r.endpoint === 'chat');

describe('herald shell as a platform', () => {
  it('Ctrl-C while an answer streams stops it: the service request is cancelled, what was shown stays, the shell goes on', async () => {
    emu.pace.tokensPerSecond = 40;
    const terminal = new Terminal();
    const exit = terminal.run(env());
    terminal.type('long 400\n');
    await terminal.until('out', (text) => text.length > 0);
    terminal.type('\x03');
    await terminal.until('err', (text) => text.includes('herald: The reply was cancelled.'));
    const cancelled = chatRequests()[0]!;
    await vi.waitFor(() => expect(cancelled.closed).toBeDefined());
    expect(cancelled.closed!.byClient).toBe(true);
    expect(cancelled.streamed!.sent).toBeLessThan(cancelled.streamed!.total / 2);
    const shown = terminal.stdout;
    expect(shown.trim().split(/\s+/).length).toBeLessThan(400);

    emu.pace.tokensPerSecond = 0;
    terminal.type('and now?\n');
    terminal.type('/exit\n');
    expect(await exit).toBe(0);
    expect(terminal.stdout).toBe(`${shown}Echo: and now?\n`);
  });

  it('Ctrl-C with no answer in progress leaves the shell', async () => {
    const terminal = new Terminal();
    const exit = terminal.run(env());
    await terminal.until('err', (text) => text.includes('you> '));
    terminal.type('\x03');
    expect(await exit).toBe(0);
    expect(chatRequests()).toEqual([]);
  });

  it('keeps the session in one conversation, /think applying to the questions after it', async () => {
    const terminal = new Terminal();
    const exit = terminal.run(env());
    terminal.type('my name is Ada\n/think on\nwhat did I say first?\n/think off\ncount turns\n/exit\n');
    expect(await exit).toBe(0);
    expect(terminal.stdout).toBe('Echo: my name is Ada\nYou first said: my name is Ada\nMessages: 6 (system 1, user 3, assistant 2, tool 0)\n');
    const thinking = chatRequests().map((r) => (r.body as { thinking?: unknown }).thinking);
    expect(thinking).toEqual([{ type: 'disabled' }, undefined, { type: 'disabled' }]);
  });
});
