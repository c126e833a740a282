import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/media/wav.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';
import { runCli } from './cli-harness.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const image = (name: string) => join(fixtures, 'images', name);
const audio = (name: string) => join(fixtures, 'audio', name);

let emu: Emulator;
const out = mkdtempSync(join(tmpdir(), 'herald-cli-'));

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => {
  await emu.close();
});

function envFor(auth: 'bearer' | 'api-key', format: 'chat' | 'messages', extra: Record<string, string> = {}) {
  return { API_BASE_URL: emu.url, API_KEY: emu.apiKey, API_AUTH: auth, API_FORMAT: format, THINKING: 'off', ...extra };
}

function lastRequest() {
  return emu.requests.at(-1)!;
}

describe.each([
  ['bearer', 'chat'],
  ['api-key', 'chat'],
  ['bearer', 'messages'],
  ['api-key', 'messages'],
] as const)('herald with %s auth, %s format', (auth, format) => {
  const env = () => envFor(auth, format);

  it('chat streams the answer to stdout through the configured endpoint and header', async () => {
    const run = await runCli(['chat', 'hello', 'there', '--no-search'], env());
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('Echo: hello there\n');
    const request = lastRequest();
    expect(request.endpoint).toBe(format);
    if (auth === 'bearer') expect(request.headers.authorization).toBe(`Bearer ${emu.apiKey}`);
    else expect(request.headers['api-key']).toBe(emu.apiKey);
  });

  it('chat --search answers with numbered sources (through chat completions even in messages format)', async () => {
    const run = await runCli(['chat', 'latest news about rust', '--search'], env());
    expect(run.code).toBe(0);
    expect(lastRequest().endpoint).toBe('chat');
    const [answer, sources] = run.stdout.split('\nSources:\n');
    const markers = new Set([...answer!.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
    const listed = [...sources!.matchAll(/^\[(\d+)\] .+\n {4}https?:\/\/\S+$/gm)].map((m) => Number(m[1]));
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    for (const n of markers) expect(listed).toContain(n);
  });

  it('describe converts a HEIC photo and asks the vision model', async () => {
    const run = await runCli(['describe', image('marker.heic'), 'what', 'colour?'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Echo: what colour\?/);
    expect(run.stdout).toMatch(/image\/(jpeg|png)/);
    expect(lastRequest().body).toMatchObject({ model: 'svc-v2.5' });
  });

  it('transcribe reads a Discord-style Ogg Opus voice note with a language hint', async () => {
    const run = await runCli(['transcribe', audio('voice-note.ogg'), '--language', 'en'], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Transcript of \d+\.\d+ s of audio \(language: en\)\.\n$/);
    expect(lastRequest().body).toMatchObject({ model: 'svc-v2.5-asr', asr_options: { language: 'en' } });
  });

  it('say writes a WAV, a raw pcm16 stream and an Ogg Opus voice note', async () => {
    for (const ext of ['wav', 'pcm', 'ogg']) {
      const file = join(out, `${auth}-${format}.${ext}`);
      const run = await runCli(['say', 'Hello from Herald', '--voice', 'default_en', '-o', file], env());
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`^wrote ${file.replace(/[.]/g, '\\.')}: \\d+\\.\\d+ s`));
      const bytes = readFileSync(file);
      if (ext === 'wav') expect(readWav(bytes).sampleRate).toBeGreaterThan(0);
      if (ext === 'pcm') expect(bytes.length % 2).toBe(0);
      if (ext === 'ogg') expect(bytes.subarray(0, 4).toString('latin1')).toBe('OggS');
    }
  });
});

describe('herald failures', () => {
  it('says authentication failed for a bad key, in one line, exit 1', async () => {
    const run = await runCli(['chat', 'hi'], { ...envFor('bearer', 'chat'), API_KEY: 'sk-wrong-key-123' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^herald: .*authentication failed.*\n$/);
    expect(run.stderr).not.toContain('sk-wrong-key-123');
  });

  it('names the missing variable', async () => {
    const run = await runCli(['chat', 'hi'], { API_KEY: 'x' });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^herald: configuration: API_BASE_URL: required/);
  });

  it('explains usage mistakes with exit code 2', async () => {
    const env = envFor('bearer', 'chat');
    for (const argv of [
      ['bogus'],
      ['say', 'hi'],
      ['say', 'hi', '-o', 'x.mp4'],
      ['transcribe', audio('voice-note.ogg'), '--language', 'fr'],
      ['chat'],
    ]) {
      const run = await runCli(argv, env);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^herald: .+ \(see herald --help\)\n$/);
    }
  });

  it('reports unreadable inputs clearly', async () => {
    const env = envFor('bearer', 'chat');
    expect((await runCli(['describe', '/nonexistent.png'], env)).stderr).toBe('herald: file not found: /nonexistent.png\n');
    const text = await runCli(['describe', image('notes.txt')], env);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^herald: .*not an image/i);
    const corrupt = await runCli(['transcribe', audio('corrupt.wav')], env);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr.split('\n')).toHaveLength(2);
  });

  it('retries a 429 before any output and then answers', async () => {
    emu.faults.push({ status: 429, retryAfter: 1 });
    const started = Date.now();
    const run = await runCli(['chat', 'after the limit', '--no-search'], envFor('bearer', 'chat'));
    expect(run.stdout).toBe('Echo: after the limit\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('as a real process: no stack trace, non-zero exit', () => {
    const bin = join(import.meta.dirname, '..', '..', 'adapters', 'cli', 'herald.ts');
    const result = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', bin, 'chat', 'hi'], {
      env: { PATH: process.env.PATH, API_BASE_URL: 'http://127.0.0.1:9', API_KEY: 'k-123456' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^herald: .*(connect|reach)/i);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });
});

describe('herald chat --file', () => {
  const env = () => ({ ...envFor('bearer', 'chat'), WEB_SEARCH: 'off' });
  const write = (name: string, data: string | Buffer) => {
    const path = join(out, name);
    writeFileSync(path, data);
    return path;
  };
  const lastUserText = () => {
    const { messages } = lastRequest().body as { messages: { role: string; content: unknown }[] };
    const content = messages.findLast((m) => m.role === 'user')!.content;
    return typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((p) => p.text ?? `<${p.type}>`).join(' ');
  };

  it('sends a code file and a PDF with the question', async () => {
    const code = write('main.py', 'print(1 / 0)\n');
    const pdf = write('report.pdf', pdfFile([['Net income: 4 million']]));
    const run = await runCli(['chat', "what's", 'wrong?', '--file', code, '--file', pdf], env());
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const sent = 'what\'s wrong?\n[file "main.py"]\n```python\nprint(1 / 0)\n```\n[file "report.pdf", 1 page]\n```\nNet income: 4 million\n```';
    expect(lastUserText()).toBe(sent);
    expect(run.stdout).toBe(`Echo: ${sent}\n`);
  });

  it('summarizes a file given without a question', async () => {
    const run = await runCli(['chat', '--file', write('notes.txt', 'buy milk\n')], env());
    expect(run.code).toBe(0);
    expect(lastUserText()).toBe('Summarize this file.\n[file "notes.txt"]\n```text\nbuy milk\n```');
  });

  it('routes an image given with --file to the vision model', async () => {
    const run = await runCli(['chat', 'what is it?', '--file', image('marker.png')], env());
    expect(run.code).toBe(0);
    expect(lastRequest().body).toMatchObject({ model: 'svc-v2.5' });
    expect(lastUserText()).toMatch(/^what is it\? <image_url>$/);
  });

  it('notes a skipped file on stderr and still answers', async () => {
    const run = await runCli(['chat', 'hello', '--file', write('clip.mp4', Buffer.alloc(64))], env());
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Echo: hello\n');
    expect(run.stderr).toBe('note: I skipped "clip.mp4": besides images and audio, I can only read text, code and PDF files.\n');
  });

  it('fails with one line when the only file cannot be read', async () => {
    const run = await runCli(['chat', '--file', write('data', Buffer.from([0, 159, 146, 150, 0, 1, 2, 3]))], env());
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(`herald: "data" isn't a text file or a PDF, so I can't read it. I can read text, code and PDF files.\n`);
  });
});

describe('herald shell', () => {
  it('keeps the conversation for the session and forgets it on /reset', async () => {
    const run = await runCli(
      [],
      { ...envFor('bearer', 'chat'), WEB_SEARCH: 'off' },
      'my name is Ada\nwhat did I say first?\n/reset\nwhat did I say first?\n/exit\n',
    );
    expect(run.code).toBe(0);
    const answers = run.stdout.trim().split('\n');
    expect(answers[0]).toBe('Echo: my name is Ada');
    expect(answers[1]).toMatch(/my name is Ada/);
    expect(answers[2]).not.toMatch(/my name is Ada/);
  });
});
