import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json, MessageRecord } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));

function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}

describe('discord: an approval nobody answers', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ env: { TOOLS_MODULE: TOOLS, APPROVAL_TIMEOUT_MS: '300' } });
  });

  afterAll(async () => {
    await h.close();
  });

  it('is denied when its time runs out: the buttons go, the tool is not run and the answer goes on', async () => {
    const { fake } = h;
    const channel = fake.addChannel({ name: 'expiry' });
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} call post_note {"text":"later"}` });
    const approval = await fake.waitFor(() => h.botMessages(channel.id).find((m) => buttons(m).includes('Approve')));
    await h.repliesFinished(before + 1);
    expect(fake.message(approval.id)!.content).toMatch(/^⌛ Not answered in time, so denied: `notes · post`/);
    expect(buttons(fake.message(approval.id))).toEqual([]);
    const answer = h.botMessages(channel.id).at(-1)!;
    expect(answer.content).toContain('post_note: The asker did not approve this call in time. It was not run.');
    expect(answer.content).not.toContain('posted later');
  });
});
