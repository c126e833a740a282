import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-harness.ts';
import { startHarness, type Harness } from '../discord/harness.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from '../slack/herald-on-fake-slack.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { hostileCorpus, type HostileFile } from './corpus.ts';

const corpus = hostileCorpus();
const GENERIC_FAILURE = /something went wrong/i;

/**
 * What a user sees for one hostile file: an answer (the emulator echoes the question) or one line saying
 * what is wrong with the file, matching what the corpus expects; never the generic apology.
 */
function expectClearOutcome(file: HostileFile, shown: string, answered: boolean): void {
  expect(shown, file.name).not.toMatch(GENERIC_FAILURE);
  expect(shown, file.name).toMatch(file.expected);
  if (!answered) expect(shown.trim().split('\n'), file.name).toHaveLength(1);
}

describe('hostile files through herald chat --file', () => {
  let emu: Emulator;
  const dir = mkdtempSync(join(tmpdir(), 'herald-hostile-'));

  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(corpus.map((file) => [file.name, file] as const))('%s gets a clear answer or one line', async (_, file) => {
    const path = join(dir, file.name);
    writeFileSync(path, file.bytes);
    const env = { API_BASE_URL: emu.url, API_KEY: emu.apiKey, THINKING: 'off', WEB_SEARCH: 'off', PATH: process.env.PATH ?? '' };
    const run = await runCli(['chat', 'what is in this file?', '--file', path], env);
    if (run.code === 0) expectClearOutcome(file, `${run.stdout}${run.stderr}`, true);
    else expectClearOutcome(file, run.stderr.replace(/^herald: /, ''), false);
  });

  it('refuses a message of ten BMP bombs with one line', async () => {
    const bomb = corpus.find((file) => file.name === 'rle-bomb.bmp')!;
    const paths = Array.from({ length: 10 }, (_, i) => join(dir, `bomb-${i}.bmp`));
    for (const path of paths) writeFileSync(path, bomb.bytes);
    const env = { API_BASE_URL: emu.url, API_KEY: emu.apiKey, THINKING: 'off', WEB_SEARCH: 'off' };
    const run = await runCli(['chat', 'what are these?', ...paths.flatMap((path) => ['--file', path])], env);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('herald: The BMP image is too large to read (16383×16383); Herald reads images up to 100 megapixels.\n');
  });
});

describe('hostile files on Discord', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ env: { PATH: process.env.PATH ?? '', QUOTA_USER_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers every file, each sent in its own message at the same time, with an answer or one line', async () => {
    const before = h.finished;
    const sent = corpus.map((file) => {
      const channel = h.fake.addChannel({ name: file.name.replace(/\W/g, '-') });
      h.fake.sendMessage({
        channelId: channel.id,
        content: `${h.mention} what is in this file?`,
        attachments: [{ filename: file.name, bytes: file.bytes }],
      });
      return { file, channel };
    });
    await h.repliesFinished(before + corpus.length, 120_000);
    for (const { file, channel } of sent) {
      const shown = h
        .botMessages(channel.id)
        .map((m) => m.content)
        .join('\n');
      expectClearOutcome(file, shown, shown.includes('Echo:'));
    }
  }, 180_000);
});

describe('hostile files on Slack', () => {
  let world: SlackWorld;
  let finished = 0;
  const waiters = new Set<() => void>();
  /** Resolves once `count` replies have been written to the end. */
  const repliesFinished = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (finished < count) return;
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  const track = <T>(work: Promise<T>): Promise<T> => {
    const done = () => {
      finished++;
      for (const wake of [...waiters]) wake();
    };
    work.then(done, done);
    return work;
  };

  beforeAll(async () => {
    world = await startSlackWorld({
      shutdown: { track, drainingSignal: new AbortController().signal, deadlineSignal: new AbortController().signal },
    });
  });
  afterAll(() => stopSlackWorld(world));

  it('answers every file, each shared in its own mention at the same time, with an answer or one line', async () => {
    const shared = [];
    for (const file of corpus) {
      const { fake } = world;
      const upload = fake.uploadUserFile({ name: file.name, bytes: file.bytes });
      const channel = fake.addChannel({ name: file.name.replace(/\W/g, '-') });
      await fake.deliverEvent(fake.events.appMention({ text: 'what is in this file?', files: [upload], channel: channel.id }));
      shared.push({ file, channel });
    }
    await repliesFinished(corpus.length);
    for (const { file, channel } of shared) {
      const shown = world.fake
        .botMessages(channel.id)
        .map((m) => m.text)
        .join('\n');
      expectClearOutcome(file, shown, shown.includes('Echo:'));
    }
  }, 180_000);
});
