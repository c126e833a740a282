import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markdownOf, type FakeSlack, type Json, type StoredMessage } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));

function actionIds(message: StoredMessage | undefined): string[] {
  return ((message?.blocks ?? []) as Json[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements as Json[]).map((e) => String(e.action_id)));
}

function sectionText(message: StoredMessage): string {
  return ((message.blocks ?? []) as Json[])
    .filter((b) => b.type === 'section')
    .map((b) => String((b.text as Json).text))
    .join('\n');
}

describe('Slack: a tool call waits for the asker to approve it', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;
  let bob: string;

  beforeAll(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ env: { TOOLS_MODULE: TOOLS } }));
    bob = fake.addUser({ name: 'bob' }).id;
  });

  afterAll(() => stopSlackWorld({ fake, emu, herald }));

  /** Mentions Herald asking for the tool; resolves with the mention's ts and the approval once it shows its buttons. */
  async function askForApproval(text: string): Promise<{ thread: string; approval: StoredMessage }> {
    const mention = fake.events.appMention({ text: `call post_note ${JSON.stringify({ text })}` });
    await fake.deliverEvent(mention);
    const thread = String(mention.ts);
    const approval = await fake.waitFor(() => fake.thread(fake.channelId, thread).find((m) => actionIds(m).includes('herald_approve')));
    return { thread, approval };
  }

  async function press(approval: StoredMessage, actionId: string, user = fake.userId): Promise<void> {
    const delivery = await fake.sendInteractive(fake.interactions.press({ channel: approval.channel, ts: approval.ts, actionId, user }));
    expect(delivery.status).toBe(200);
  }

  /** Herald's answer in the thread once its stream or message is final. */
  const answerIn = (thread: string) =>
    fake.waitFor(() =>
      fake
        .thread(fake.channelId, thread)
        .find((m) => m.user === fake.botUserId && m.stream?.state === 'stopped' && markdownOf(m).includes('Tool results')),
    );

  it('shows the tool and its escaped arguments with Approve and Deny; only the asker may answer; Approve runs it', async () => {
    const hostile = 'hi <!everyone> 1 &lt; 2 &amp;&amp; <https://example.com> ``` done';
    const { thread, approval } = await askForApproval(hostile);
    expect(actionIds(approval)).toEqual(['herald_approve', 'herald_deny']);
    expect(sectionText(approval)).toContain('`notes · post`');
    expect(sectionText(approval)).toContain(
      '```{\n  "text": "hi @everyone 1 &lt; 2 &amp;&amp; https://example.com \\u0060\\u0060\\u0060 done"\n}```',
    );
    expect(approval.thread_ts).toBe(thread);

    await press(approval, 'herald_approve', bob);
    await fake.waitFor(() => fake.workspace.ephemeral.find((e) => e.user === bob));
    expect(fake.workspace.ephemeral.filter((e) => e.user === bob)).toEqual([
      expect.objectContaining({ channel: fake.channelId, thread_ts: thread, text: 'Only the person who asked can approve or deny this.' }),
    ]);
    expect(actionIds(fake.workspace.findMessage(fake.channelId, approval.ts))).toEqual(['herald_approve', 'herald_deny']);

    await press(approval, 'herald_approve');
    const answer = await answerIn(thread);
    expect(markdownOf(answer)).toContain('post_note: posted hi');
    const settled = await fake.waitFor(() => {
      const shown = fake.workspace.findMessage(fake.channelId, approval.ts)!;
      return actionIds(shown).length === 0 && shown;
    });
    expect(sectionText(settled)).toMatch(/^✅ Approved: `notes · post`/);
  });

  it('Deny leaves the tool unrun and the answer goes on', async () => {
    const { thread, approval } = await askForApproval('wipe it');
    await press(approval, 'herald_deny');
    const answer = await answerIn(thread);
    expect(markdownOf(answer)).toContain('post_note: The asker denied this call. It was not run.');
    await fake.waitFor(() => sectionText(fake.workspace.findMessage(fake.channelId, approval.ts)!).startsWith('🚫 Denied'));
  });

  it('/ask shows the approval in its thread; Approve runs the tool and the answer uses it', async () => {
    await fake.sendSlashCommand({ command: '/ask', text: 'call post_note {"text":"from ask"}' });
    const approval = await fake.waitFor(() => fake.botMessages(fake.channelId).find((m) => actionIds(m).includes('herald_approve')));
    const thread = approval.thread_ts!;
    expect(fake.message(fake.channelId, thread)!.text).toBe(`<@${fake.userId}> used /ask: call post_note {"text":"from ask"}`);
    expect(sectionText(approval)).toContain('`notes · post`');
    expect(sectionText(approval)).toContain('"text": "from ask"');
    await press(approval, 'herald_approve');
    expect(markdownOf(await answerIn(thread))).toContain('post_note: posted from ask');
    await fake.waitFor(() => sectionText(fake.workspace.findMessage(fake.channelId, approval.ts)!).startsWith('✅ Approved'));
  });

  it('a shortcut asks the presser alone, in an ephemeral approval whose press replaces it; Approve runs the tool', async () => {
    const messageTs = String(fake.events.message({ text: 'call post_note {"text":"privately"}', user: bob, channel: fake.channelId }).ts);
    await fake.sendInteractive(fake.messageShortcutPayload({ callbackId: 'translate', messageTs }));
    // The Web API takes blocks as a JSON string in a form-encoded call.
    const blocksOf = (m: Json) => JSON.parse(String(m.blocks ?? '[]')) as Json[];
    const approval = await fake.waitFor(() =>
      fake.ephemeralMessages(fake.userId).find((m) => JSON.stringify(blocksOf(m)).includes('herald_approve')),
    );
    const buttons = blocksOf(approval).find((b) => b.type === 'actions')!.elements as Json[];
    expect(buttons.map((b) => b.action_id)).toEqual(['herald_approve', 'herald_deny']);
    expect(String((blocksOf(approval)[1]!.text as Json).text)).toContain('"text": "privately"');
    expect(fake.botMessages(fake.channelId).filter((m) => actionIds(m).length > 0 && m.ts > messageTs)).toEqual([]);

    const pressed = fake.blockActionsPayload({
      messageTs: String(approval.ts),
      actionId: 'herald_approve',
      value: String(buttons[0]!.value),
      ephemeral: true,
    });
    expect((await fake.sendInteractive(pressed)).status).toBe(200);
    const replaced = await fake.waitFor(() => fake.responseUrlPosts.find((p) => p.url === pressed.response_url));
    expect(replaced).toMatchObject({ status: 200, body: { replace_original: true, text: '✅ Approved' } });
    const answer = await fake.waitFor(() => fake.ephemeralMessages(fake.userId).find((m) => String(m.text).includes('post_note: posted privately')));
    expect(answer.channel).toBe(fake.channelId);
  });
});
