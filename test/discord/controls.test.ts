import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission, type InteractionRecord, type Json, type MessageRecord } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const DEFERRED_UPDATE_MESSAGE = 6;

/** The labels of a message's buttons, as a user sees them, with (off) for a disabled one. */
function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) =>
    ((row.components as Json[] | undefined) ?? []).map((b) => `${String(b.label)}${b.disabled === true ? ' (off)' : ''}`),
  );
}

describe('discord: the buttons on an answer', () => {
  let h: Harness;
  let moderatorId: string;

  beforeAll(async () => {
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS } });
    const moderator = h.fake.addUser({ username: 'mod' });
    const role = h.fake.addRole({ name: 'Moderators', permissions: Permission.ManageMessages });
    h.fake.addMember({ userId: moderator.id, roleIds: [role.id] });
    moderatorId = moderator.id;
  });

  afterAll(async () => {
    await h.close();
  });

  /** Asks in `channelId` and waits for the answer to end; returns the question's id. */
  async function ask(channelId: string, question: string, authorId?: string): Promise<string> {
    const before = h.finished;
    const sent = h.fake.sendMessage({ channelId, content: `${h.mention} ${question}`, ...(authorId && { authorId }) });
    await h.repliesFinished(before + 1);
    return String(sent.id);
  }

  /** Presses a button on a message and waits until Discord has the press acknowledged. */
  async function press(messageId: string, label: string, userId = h.fake.users.alice.id): Promise<InteractionRecord> {
    const record = h.fake.pressButton({ messageId, button: label, userId });
    await h.fake.waitFor(() => record.responseType !== null, { description: `the press of ${label} acknowledged` });
    expect(record.responseType).toBe(DEFERRED_UPDATE_MESSAGE);
    return record;
  }

  /** What Herald told the presser alone, once it did. */
  async function toldPresser(record: InteractionRecord): Promise<MessageRecord> {
    const id = await h.fake.waitFor(() => record.followupIds[0]);
    return h.fake.message(id)!;
  }

  it('Regenerate answers again in place of the old answer, ◀ ▶ flip between the versions; only the asker or a moderator may press', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'regenerate' });
    await ask(channel.id, 'roll 999999999');
    const first = h.botMessages(channel.id).map((m) => ({ ...m }));
    expect(first).toHaveLength(1);
    expect(first[0]!.content).toMatch(/^Rolled \d+\.$/);
    expect(buttons(first[0])).toEqual(['Regenerate']);

    const requests = emu.requests.length;
    const refusal = await toldPresser(await press(first[0]!.id, 'Regenerate', fake.users.bob.id));
    expect(refusal).toMatchObject({ content: 'Only the asker can do that.', ephemeral: true });
    expect(emu.requests).toHaveLength(requests);
    expect(h.botMessages(channel.id).map((m) => m.content)).toEqual([first[0]!.content]);

    const before = h.finished;
    await press(first[0]!.id, 'Regenerate');
    await h.repliesFinished(before + 1);
    const second = h.botMessages(channel.id).map((m) => ({ ...m }));
    expect(second).toHaveLength(1);
    expect(fake.message(first[0]!.id)?.deleted).toBe(true);
    expect(second[0]!.content).toMatch(/^Rolled \d+\.$/);
    expect(second[0]!.content).not.toBe(first[0]!.content);
    expect(buttons(second[0])).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);

    // The conversation remembers only the new answer.
    const chain = fake.sendMessage({ channelId: channel.id, content: 'history', messageReference: { messageId: second[0]!.id } });
    await h.repliesFinished(before + 2);
    const history = h.botMessages(channel.id).find((m) => m.reference?.messageId === chain.id)!.content;
    expect(history).toContain(`assistant: ${second[0]!.content}`);
    expect(history).not.toContain(first[0]!.content);

    const answer = second[0]!.id;
    await press(answer, '◀', moderatorId);
    await fake.waitFor(() => fake.message(answer)?.content === first[0]!.content);
    expect(buttons(fake.message(answer))).toEqual(['◀ (off)', '1/2 (off)', '▶', 'Regenerate']);
    await press(answer, '▶');
    await fake.waitFor(() => fake.message(answer)?.content === second[0]!.content);
    expect(buttons(fake.message(answer))).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);

    // The conversation went on (the reply above): this answer is no longer its newest, so it is not answered again.
    const asked = emu.requests.length;
    const stale = await toldPresser(await press(answer, 'Regenerate'));
    expect(stale).toMatchObject({ content: 'Only the latest answer in this conversation can be regenerated or continued.', ephemeral: true });
    expect(emu.requests).toHaveLength(asked);
    expect(fake.message(answer)).toMatchObject({ content: second[0]!.content, deleted: false });
    expect(buttons(fake.message(answer))).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);
  });

  it('Stop ends the answer where it is: the service request is cancelled, the message finished without an error line', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'stop' });
    emu.pace.tokensPerSecond = 40;
    const before = h.finished;
    fake.sendMessage({ channelId: channel.id, content: `${h.mention} long 300` });
    const streaming = await fake.waitFor(() => h.botMessages(channel.id).find((m) => buttons(m).includes('Stop') && m.content.split(' ').length > 5));
    expect(buttons(streaming)).toEqual(['Stop']);
    const request = emu.requests.at(-1)!;
    const refusal = await toldPresser(await press(streaming.id, 'Stop', fake.users.bob.id));
    expect(refusal.content).toBe('Only the asker can do that.');
    await press(streaming.id, 'Stop');
    await h.repliesFinished(before + 1);
    emu.pace.tokensPerSecond = 0;
    await fake.waitFor(() => request.closed);
    expect(request.closed!.byClient).toBe(true);
    expect(request.streamed!.sent).toBeLessThan(request.streamed!.total);
    const [stopped] = h.botMessages(channel.id);
    expect(h.botMessages(channel.id)).toHaveLength(1);
    expect(stopped!.content.split(/\s+/).length).toBeLessThan(300);
    expect(stopped!.content).not.toMatch(/⚠️|…$/);
    expect(buttons(stopped)).toEqual(['Regenerate']);

    // A stopped answer never entered the conversation, so Regenerate simply asks again.
    await press(stopped!.id, 'Regenerate');
    await h.repliesFinished(before + 2);
    const [again] = h.botMessages(channel.id);
    expect(again!.content.split(/\s+/)).toHaveLength(300);
    expect(again!.content.startsWith(stopped!.content)).toBe(true);
    expect(buttons(again)).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);
  });

  it('flips every message of a long answer, posting and deleting parts; Continue goes on from a cut answer', async () => {
    const { fake, emu } = h;
    const channel = fake.addChannel({ name: 'long-versions' });
    await ask(channel.id, 'long 450');
    const long = h.botMessages(channel.id).map((m) => ({ ...m }));
    expect(long).toHaveLength(2);
    expect(buttons(long[0])).toEqual([]);
    expect(buttons(long[1])).toEqual(['Regenerate']);

    for (const model of emu.models) model.maxOutputTokens = 30;
    let before = h.finished;
    await press(long[1]!.id, 'Regenerate');
    await h.repliesFinished(before + 1);
    const cut = h.botMessages(channel.id).map((m) => ({ ...m }));
    expect(cut).toHaveLength(1);
    expect(cut[0]!.content.length).toBeLessThan(200);
    expect(buttons(cut[0])).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate', 'Continue']);

    await press(cut[0]!.id, '◀');
    await fake.waitFor(() => h.botMessages(channel.id).length === 2 && buttons(h.botMessages(channel.id)[1]).length > 0);
    const flipped = h.botMessages(channel.id);
    expect(flipped.map((m) => m.content)).toEqual(long.map((m) => m.content));
    expect(flipped[0]!.id).toBe(cut[0]!.id);
    expect(buttons(flipped[0])).toEqual([]);
    expect(buttons(flipped[1])).toEqual(['◀ (off)', '1/2 (off)', '▶', 'Regenerate']);

    await press(flipped[1]!.id, '▶');
    await fake.waitFor(() => h.botMessages(channel.id).length === 1);
    expect(h.botMessages(channel.id).map((m) => [m.content, buttons(m)])).toEqual([[cut[0]!.content, buttons(cut[0])]]);

    for (const model of emu.models) delete model.maxOutputTokens;
    before = h.finished;
    await press(cut[0]!.id, 'Continue');
    await h.repliesFinished(before + 1);
    const asked = emu.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(asked.messages.at(-2)).toMatchObject({ role: 'assistant', content: cut[0]!.content });
    expect(JSON.stringify(asked.messages.at(-1)!.content)).toContain('continue');
    const continued = h.botMessages(channel.id);
    expect(continued).toHaveLength(2);
    expect(continued[1]!.content).toMatch(/continue/);
    expect(buttons(continued[0])).toEqual([]);
    expect(buttons(continued[1])).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);
  });

  it('works in a direct message, where the asker alone can press', async () => {
    const { fake } = h;
    const dm = fake.dmChannel;
    const before = h.finished;
    fake.sendMessage({ channelId: dm.id, content: 'roll 999999999' });
    await h.repliesFinished(before + 1);
    const [first] = h.botMessages(dm.id).map((m) => ({ ...m }));
    expect(buttons(first)).toEqual(['Regenerate']);
    await press(first!.id, 'Regenerate');
    await h.repliesFinished(before + 2);
    const [second] = h.botMessages(dm.id);
    expect(second!.content).toMatch(/^Rolled \d+\.$/);
    expect(second!.content).not.toBe(first!.content);
    expect(buttons(second)).toEqual(['◀', '2/2 (off)', '▶ (off)', 'Regenerate']);
  });
});
