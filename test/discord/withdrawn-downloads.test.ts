import { afterAll, beforeAll, expect, it } from 'vitest';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const KB = 1024;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
});

afterAll(async () => {
  await h.close();
});

it("cancels a question's downloads when it is deleted mid-transfer, and posts nothing", { timeout: 20_000 }, async () => {
  const { fake } = h;
  const channel = fake.addChannel({ name: 'withdrawn' });
  const before = h.finished;
  const question = fake.sendMessage({
    channelId: channel.id,
    content: `${h.mention} summarize this`,
    attachments: [{ filename: 'notes.txt', bytes: Buffer.alloc(256 * KB, 0x61) }],
  });
  const [attachment] = question.attachments as Array<{ id: string }>;
  const held = fake.holdCdnTransfer(attachment!.id, KB);
  const transfer = await fake.waitFor(() => fake.cdnRequests.find((r) => r.attachmentId === attachment!.id), {
    description: 'the download to start',
  });

  fake.deleteUserMessage({ channelId: channel.id, messageId: String(question.id) });
  await h.repliesFinished(before + 1);
  await fake.waitFor(() => transfer.ended, { description: 'the download to end' });
  held.release();

  expect(transfer.ended).toBe('client-closed');
  expect(h.botMessages(channel.id)).toEqual([]);
  expect(h.emu.requests.filter((r) => r.endpoint === 'chat')).toEqual([]);
});
