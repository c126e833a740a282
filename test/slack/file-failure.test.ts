import { afterEach, beforeEach, expect, it } from 'vitest';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

let fake: FakeSlack;
let emu: Emulator;
let herald: HeraldOnSlack;

beforeEach(async () => {
  ({ fake, emu, herald } = await startSlackWorld());
});

afterEach(async () => {
  await stopSlackWorld({ fake, emu, herald });
});

it('a file Slack will not hand over ends the answer with a clear line and clears "is thinking…"', { timeout: 20_000 }, async () => {
  const started = fake.events.assistantThreadStarted();
  const thread = started.assistant_thread as { channel_id: string; thread_ts: string };
  await fake.deliverEvent(started);
  await fake.waitFor(() => fake.assistantThread(thread.channel_id, thread.thread_ts).suggestedPrompts);

  // A file shared from another organization arrives as a stub to look up with files.info, which refuses it here.
  const report = fake.uploadUserFile({ name: 'report.txt', bytes: Buffer.from('quarterly numbers') });
  const shared = fake.events.fileShare({ files: [report], text: 'what is in this file?', channel: thread.channel_id, thread_ts: thread.thread_ts });
  fake.injectError('files.info', 'file_not_found');
  await fake.deliverEvent({ ...shared, files: [{ id: report.file.id, file_access: 'check_file_info' }] });
  const said = await fake.waitFor(() => fake.botMessages(thread.channel_id).find((m) => m.text.startsWith('⚠️')), 10_000);
  expect(said.thread_ts).toBe(thread.thread_ts);
  expect(said.text.split('\n')).toHaveLength(1);
  const state = await fake.waitFor(() => {
    const now = fake.assistantThread(thread.channel_id, thread.thread_ts);
    return now.status === '' && now;
  });
  expect(state.statusHistory.map((s) => s.status)).toEqual(['is thinking…', '']);
  expect(emu.requests).toHaveLength(0);
});
