import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachable, redisUrl } from '../store/backends.ts';
import { buttons, startTwoInstances, type TwoInstances } from './two-instances.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));

const redisUp = await reachable(redisUrl);

// Two processes of one bot (a rolling deploy): the approval waits on one, Discord may deliver the press to the other.
describe.skipIf(!redisUp)(`discord: an approval pressed on the other of two instances sharing Redis at ${redisUrl}`, () => {
  let two: TwoInstances;

  beforeAll(async () => {
    two = await startTwoInstances({ TOOLS_MODULE: TOOLS });
  });

  afterAll(() => two.close());

  it('reaches the call waiting on the first instance; a message the other took meanwhile waits its turn, shown queued', async () => {
    const { emu, fake, first: waiting, second: other, heardFirstBy } = two;
    const dm = fake.dmChannel.id;
    const bot = () => fake.messages(dm).filter((m) => m.authorId === fake.botUser.id && !m.deleted);
    const approval = await heardFirstBy(waiting, async () => {
      fake.sendMessage({ channelId: dm, content: 'call post_note {"text":"from afar"}' });
      return fake.waitFor(() => bot().find((m) => buttons(m).includes('Approve')));
    });
    const second = await heardFirstBy(other, async () => {
      const sent = fake.sendMessage({ channelId: dm, content: 'and the history' });
      await fake.waitFor(() => bot().find((m) => m.reference?.messageId === sent.id && m.content.startsWith('⏳')), {
        description: 'the queued note from the other instance',
      });
      return sent;
    });
    expect(emu.requests.some((r) => JSON.stringify(r.body).includes('and the history'))).toBe(false);

    await heardFirstBy(other, async () => {
      const press = fake.pressButton({ messageId: approval.id, button: 'Approve' });
      await fake.waitFor(() => press.responseType !== null);
    });
    await waiting.repliesFinished(1);
    await other.repliesFinished(1);
    expect(fake.message(approval.id)!.content).toMatch(/^✅ Approved/);
    expect(buttons(fake.message(approval.id))).toEqual([]);
    const [first, then] = bot().filter((m) => m.id !== approval.id);
    expect(first!.content).toContain('post_note: posted from afar');
    expect(then!.reference?.messageId).toBe(second.id);
    expect(then!.content).toContain('assistant: Tool results:\n- post_note: posted from afar');
  });
});
