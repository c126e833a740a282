import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import type { InteractionRecord, Json, MessageRecord } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));
const ACME = fileURLToPath(new URL('../fakes/mcp/acme-stdio.ts', import.meta.url));
const DEFERRED_UPDATE_MESSAGE = 6;
const SUPPRESS_EMBEDS = 1 << 2;

function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}

describe('discord: a tool call waits for the asker to approve it', () => {
  let h: Harness;
  const dir = mkdtempSync(join(tmpdir(), 'herald-approval-'));

  beforeAll(async () => {
    // An MCP server nobody marked trusted: every call of a tool not annotated read-only needs approval.
    const mcpConfig = join(dir, 'mcp.json');
    writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { acme: { command: process.execPath, args: [ACME] } } }));
    h = await startHarness({ env: { TOOLS_MODULE: TOOLS, MCP_CONFIG: mcpConfig } });
    await h.core.mcp.firstAttempts();
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Asks for the tool in `channelId`; resolves with the approval message once it shows its buttons. */
  async function askForApproval(channelId: string, text: string, tool = 'post_note'): Promise<MessageRecord> {
    const before = h.botMessages(channelId).length;
    h.fake.sendMessage({ channelId, content: `${h.mention} call ${tool} ${JSON.stringify({ text })}` });
    return h.fake.waitFor(
      () =>
        h
          .botMessages(channelId)
          .slice(before)
          .find((m) => buttons(m).includes('Approve')),
      {
        description: 'the approval message',
      },
    );
  }

  async function press(messageId: string, label: string, userId = h.fake.users.alice.id): Promise<InteractionRecord> {
    const record = h.fake.pressButton({ messageId, button: label, userId });
    await h.fake.waitFor(() => record.responseType !== null, { description: `the press of ${label} acknowledged` });
    expect(record.responseType).toBe(DEFERRED_UPDATE_MESSAGE);
    return record;
  }

  it('shows the tool and its arguments with Approve and Deny; only the asker may answer; Approve runs it', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'approve' });
    const before = h.finished;
    const hostile = 'hi @everyone <@&1> https://example.com/x ``` done';
    const approval = await askForApproval(channel.id, hostile);
    expect(buttons(approval)).toEqual(['Approve', 'Deny']);
    expect(approval.content).toContain('`notes · post`');
    expect(approval.content).toContain('```json\n{\n  "text": "hi @everyone <@&1> https://example.com/x \\u0060\\u0060\\u0060 done"\n}\n```');
    expect(approval.flags & SUPPRESS_EMBEDS).toBe(SUPPRESS_EMBEDS);
    expect(approval.embeds).toEqual([]);
    expect(fake.messagePayload(approval.id)).toMatchObject({ mention_everyone: false, mention_roles: [] });

    const refused = await press(approval.id, 'Approve', fake.users.bob.id);
    const told = fake.message(await fake.waitFor(() => refused.followupIds[0]))!;
    expect(told).toMatchObject({ content: 'Only the person who asked can approve or deny this.', ephemeral: true });
    expect(buttons(fake.message(approval.id))).toEqual(['Approve', 'Deny']);

    await press(approval.id, 'Approve');
    await h.repliesFinished(before + 1);
    const answer = h.botMessages(channel.id).at(-1)!;
    expect(answer.content).toContain('post_note: posted hi @everyone <@&1> <https://example.com/x> ``` done');
    expect(fake.message(approval.id)!.content).toMatch(/^✅ Approved: `notes · post`/);
    expect(buttons(fake.message(approval.id))).toEqual([]);
  });

  it('Deny leaves the tool unrun and the answer goes on, telling the model', async () => {
    const channel = h.fake.addChannel({ name: 'deny' });
    const before = h.finished;
    const approval = await askForApproval(channel.id, 'drop the table');
    await press(approval.id, 'Deny');
    await h.repliesFinished(before + 1);
    const answer = h.botMessages(channel.id).at(-1)!;
    expect(answer.content).toContain('post_note: The asker denied this call. It was not run.');
    expect(answer.content).not.toContain('posted drop the table');
    expect(h.fake.message(approval.id)!.content).toMatch(/^🚫 Denied: `notes · post`/);
    expect(buttons(h.fake.message(approval.id))).toEqual([]);
  });

  it('a message sent while an approval waits queues visibly and is answered after, with the first exchange in its history', async () => {
    const { fake, emu } = h;
    const dm = fake.dmChannel.id;
    const before = h.finished;
    const approval = await askForApproval(dm, 'first');
    const second = fake.sendMessage({ channelId: dm, content: 'then what is the history' });
    const note = await fake.waitFor(() => h.botMessages(dm).find((m) => m.reference?.messageId === second.id), {
      description: 'the queued note',
    });
    expect(note.content).toBe('⏳ _Waiting for the previous reply…_');
    expect(emu.requests.some((r) => JSON.stringify(r.body).includes('what is the history'))).toBe(false);

    await press(approval.id, 'Approve');
    await h.repliesFinished(before + 2);
    expect(fake.message(note.id)?.deleted).toBe(true);
    const answers = h.botMessages(dm).filter((m) => !m.deleted && m.id !== approval.id);
    expect(answers.map((m) => m.reference?.messageId)).toEqual([expect.any(String), second.id]);
    expect(answers[0]!.content).toContain('post_note: posted first');
    expect(answers[1]!.content).toMatch(
      /^History:\nsystem: [\s\S]*\nuser: call post_note \{"text":"first"\}\n[\s\S]*tool: posted first\nassistant: Tool results:/,
    );
  });

  it('deleting the question while its approval waits takes the approval down; nothing more is asked or answered', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'withdrawn' });
    const before = h.finished;
    const approval = await askForApproval(channel.id, 'never mind');
    const question = approval.reference!.messageId!;
    const requests = emu.requests.length;
    fake.deleteUserMessage({ channelId: channel.id, messageId: question });
    await h.repliesFinished(before + 1);
    await fake.waitFor(() => fake.message(approval.id)?.deleted);
    expect(emu.requests).toHaveLength(requests);
    expect(h.botMessages(channel.id).filter((m) => !m.deleted)).toEqual([]);
  });

  it('/ask offers the approval among its replies; Approve runs the tool and the answer uses it', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'ask' });
    const before = h.finished;
    const asked = fake.invokeCommand({ name: 'ask', channelId: channel.id, options: { question: 'call post_note {"text":"from ask"}' } });
    const replies = () => [asked.originalMessageId, ...asked.followupIds].flatMap((id) => (id ? [fake.message(id)!] : []));
    const approval = await fake.waitFor(() => replies().find((m) => buttons(m).includes('Approve')), { description: 'the approval' });
    expect(approval.content).toContain('`notes · post`');
    expect(approval.content).toContain('"text": "from ask"');

    const refused = await press(approval.id, 'Approve', fake.users.bob.id);
    await fake.waitFor(() => refused.followupIds[0]);
    expect(buttons(fake.message(approval.id))).toEqual(['Approve', 'Deny']);

    await press(approval.id, 'Approve');
    await h.repliesFinished(before + 1);
    expect(fake.message(approval.id)!.content).toMatch(/^✅ Approved: `notes · post`/);
    expect(buttons(fake.message(approval.id))).toEqual([]);
    const answer = replies().find((m) => m.id !== approval.id);
    expect(answer?.content).toContain('post_note: posted from ask');
  });

  it('Ask Herald… shows its approval to the asker alone, in an ephemeral follow-up; Approve runs the tool', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'menu' });
    const target = fake.sendMessage({ channelId: channel.id, authorId: fake.users.bob.id, content: 'The board needs a note.' });
    const opened = fake.runMessageCommand({ name: 'Ask Herald…', messageId: String(target.id) });
    await fake.waitFor(() => opened.callbacks.length > 0);
    const before = h.finished;
    const submitted = fake.submitModal({ interactionId: opened.id, values: { input: 'call post_note {"text":"privately"}' } });
    const replies = () => [submitted.originalMessageId, ...submitted.followupIds].flatMap((id) => (id ? [fake.message(id)!] : []));
    const approval = await fake.waitFor(() => replies().find((m) => buttons(m).includes('Approve')), { description: 'the approval' });
    expect(approval.ephemeral).toBe(true);
    expect(approval.content).toContain('"text": "privately"');

    await press(approval.id, 'Approve');
    await h.repliesFinished(before + 1);
    expect(fake.message(approval.id)!.content).toMatch(/^✅ Approved: `notes · post`/);
    const answer = replies().find((m) => m.id !== approval.id);
    expect(answer).toMatchObject({ ephemeral: true, content: expect.stringContaining('post_note: posted privately') });
    expect(h.botMessages(channel.id).filter((m) => !m.ephemeral)).toEqual([]);
  });

  it("an MCP server's tool that changes the world runs once approved", async () => {
    const channel = h.fake.addChannel({ name: 'mcp' });
    const before = h.finished;
    const approval = await askForApproval(channel.id, 'ship it', 'acme__write_note');
    expect(approval.content).toContain('`acme · write_note`');
    await press(approval.id, 'Approve');
    await h.repliesFinished(before + 1);
    expect(h.botMessages(channel.id).at(-1)!.content).toContain('acme__write_note: noted: ship it');
  });
});
