import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis-store.ts';
import { markdownOf, startFakeSlack, type FakeSlack, type Json, type StoredMessage } from '../fakes/slack/index.ts';
import { startEmulator } from '../fakes/service/emulator.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { startHerald, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));
const redisUp = await reachable(redisUrl);

function actionIds(message: StoredMessage | undefined): string[] {
  return ((message?.blocks ?? []) as Json[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements as Json[]).map((e) => String(e.action_id)));
}

function sectionText(message: StoredMessage | undefined): string {
  return ((message?.blocks ?? []) as Json[])
    .filter((b) => b.type === 'section')
    .map((b) => String((b.text as Json).text))
    .join('\n');
}

// Two instances sharing Redis: Slack delivers each event and press to whichever the request URL names.
describe.skipIf(!redisUp)(`Slack: approvals on two instances sharing Redis at ${redisUrl}`, () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let stores: RedisStore[];
  let waiting: HeraldOnSlack;
  /** Denies an approval after 400 ms. */
  let hasty: HeraldOnSlack;

  beforeAll(async () => {
    fake = await startFakeSlack();
    emu = await startEmulator();
    stores = [await RedisStore.connect(redisUrl), await RedisStore.connect(redisUrl)];
    const env = { STORE_URL: redisUrl, TOOLS_MODULE: TOOLS };
    hasty = await startHerald(fake, emu, { mode: 'http', store: stores[1], env: { ...env, APPROVAL_TIMEOUT_MS: '400' } });
    waiting = await startHerald(fake, emu, { mode: 'http', store: stores[0], env });
  });

  afterAll(async () => {
    for (const herald of [waiting, hasty]) await herald.stop();
    for (const store of stores) await store.close();
    await fake.close();
    await emu.close();
  });

  const inThread = (thread: string) => fake.thread(fake.channelId, thread);

  async function askForApproval(text: string): Promise<{ thread: string; approval: StoredMessage }> {
    const mention = fake.events.appMention({ text: `call post_note ${JSON.stringify({ text })}` });
    await fake.deliverEvent(mention);
    const thread = String(mention.ts);
    return { thread, approval: await fake.waitFor(() => inThread(thread).find((m) => actionIds(m).includes('herald_approve'))) };
  }

  it('a press on the other instance reaches the waiting call; a question it took meanwhile waits its turn, shown queued', async () => {
    fake.setRequestUrl(waiting.eventsUrl!);
    const { thread, approval } = await askForApproval('from afar');

    fake.setRequestUrl(hasty.eventsUrl!);
    const second = fake.events.appMention({ text: 'and the history', thread_ts: thread });
    await fake.deliverEvent(second);
    const note = await fake.waitFor(() => inThread(thread).find((m) => m.user === fake.botUserId && m.text.startsWith('⏳')));
    expect(note.text).toBe('⏳ _Waiting for the previous reply…_');
    expect(emu.requests.some((r) => JSON.stringify(r.body).includes('and the history'))).toBe(false);

    const delivery = await fake.sendInteractive(fake.interactions.press({ channel: approval.channel, ts: approval.ts, actionId: 'herald_approve' }));
    expect(delivery.status).toBe(200);
    const answers = await fake.waitFor(() => {
      const done = inThread(thread).filter((m) => m.user === fake.botUserId && m.stream?.state === 'stopped');
      return done.length === 2 && done;
    });
    expect(markdownOf(answers[0]!)).toContain('post_note: posted from afar');
    expect(markdownOf(answers[1]!)).toContain('assistant: Tool results:\n- post_note: posted from afar');
    expect(sectionText(fake.workspace.findMessage(fake.channelId, approval.ts))).toMatch(/^✅ Approved/);
    await fake.waitFor(() => !inThread(thread).some((m) => m.text.startsWith('⏳')));
  });

  it('an approval nobody answers is denied when its time runs out, and the answer goes on', async () => {
    fake.setRequestUrl(hasty.eventsUrl!);
    const { thread, approval } = await askForApproval('never');
    const answer = await fake.waitFor(() => inThread(thread).find((m) => m.user === fake.botUserId && m.stream?.state === 'stopped'));
    expect(markdownOf(answer)).toContain('post_note: The asker did not approve this call in time. It was not run.');
    const settled = await fake.waitFor(() => {
      const shown = fake.workspace.findMessage(fake.channelId, approval.ts);
      return actionIds(shown).length === 0 && shown;
    });
    expect(sectionText(settled)).toMatch(/^⌛ Not answered in time, so denied: `notes · post`/);
  });
});
