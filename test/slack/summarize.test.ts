import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack, Json } from '../fakes/slack/index.ts';
import type { StoredMessage } from '../fakes/slack/state.ts';
import { startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

const MINUTE = 60_000;

/** The part of a permalink that names the message: `/archives/{channel}/p{ts without the dot}`. */
const permalink = (channel: string, ts: string) => `/archives/${channel}/p${ts.replace('.', '')}`;

/** The permalinks an answer's source lines link to, in their numbered order. */
function sourceLinks(blocks: unknown): string[] {
  const list = (typeof blocks === 'string' ? JSON.parse(blocks) : (blocks ?? [])) as Json[];
  const texts = list.flatMap((b) => (b.type === 'context' ? (b.elements as Array<{ text: string }>) : []));
  return texts.flatMap((e) => [...e.text.matchAll(/<https:\/\/[^/]+(\/archives\/[^|?>]+)/g)].map((m) => m[1]!));
}

describe('slack: summaries of a channel and of a thread', () => {
  let world: SlackWorld;
  let fake: FakeSlack;
  let seeded: StoredMessage[];
  let bob: string;

  beforeAll(async () => {
    // A small context, so a few hundred messages need summarizing in parts.
    world = await startSlackWorld({ env: { CONTEXT_TOKENS: '3000' } });
    fake = world.fake;
    bob = fake.addUser({ name: 'bob' }).id;
    const start = Date.now() - 10 * MINUTE;
    const lines = [
      'Shall we ship on Friday?',
      'The build is broken on main.',
      'Fixed: a stale lock file.',
      'Release notes are drafted.',
      'Friday it is.',
    ];
    seeded = fake.workspace.seedHistory(
      fake.channelId,
      lines.map((text, i) => ({ user: i === 1 ? fake.userId : bob, text, at: start + i * MINUTE })),
    );
  });

  afterAll(() => stopSlackWorld(world));

  /** Herald's ephemeral messages to alice since `before`: the summary, then its sources. */
  const ephemeralSince = (before: number) => fake.ephemeralMessages(fake.userId).slice(before);

  it('/summarize shows alice alone a summary of the last messages, its sources linking to them', async () => {
    const before = fake.ephemeralMessages().length;
    await fake.sendSlashCommand({ command: '/summarize', text: '--count=3' });
    await world.herald.settled();
    const [summary, sources] = ephemeralSince(before);
    expect(summary).toMatchObject({ channel: fake.channelId, user: fake.userId });
    expect(String(summary!.text)).toMatch(/^Echo: \[1\] bob \(.+\): Fixed: a stale lock file\.\n\[2\] bob .*\n\[3\] bob .*Friday it is\.$/);
    expect(sourceLinks(sources!.blocks)).toEqual(seeded.slice(2).map((m) => permalink(fake.channelId, m.ts)));
    expect(fake.botMessages(fake.channelId)).toHaveLength(0);
  });

  it('/summarize with no range catches alice up since she last wrote; --post shows it to everyone', async () => {
    const before = fake.ephemeralMessages().length;
    await fake.sendSlashCommand({ command: '/summarize', text: '' });
    await world.herald.settled();
    const [, sources] = ephemeralSince(before);
    expect(sourceLinks(sources!.blocks)).toEqual(seeded.slice(2).map((m) => permalink(fake.channelId, m.ts)));

    await fake.sendSlashCommand({ command: '/summarize', text: '1h --post' });
    await world.herald.settled();
    const [posted] = fake.botMessages(fake.channelId);
    expect(sourceLinks(posted!.blocks)).toEqual(seeded.map((m) => permalink(fake.channelId, m.ts)));
    expect(fake.ephemeralMessages().length).toBe(before + 2);
  });

  it('summarizes a long range of another channel in parts, citing its messages and saying what was left out', async () => {
    const busy = fake.addChannel({ name: 'busy' }).id;
    fake.workspace.setMembers(busy, [fake.userId, fake.botUserId, bob]);
    const start = Date.now() - 500 * MINUTE;
    const messages = fake.workspace.seedHistory(
      busy,
      Array.from({ length: 400 }, (_, i) => ({
        user: bob,
        text: `status update ${i + 1}: the launch checklist item ${i + 1} has an owner now`,
        at: start + i * MINUTE,
      })),
    );
    const before = fake.ephemeralMessages().length;
    const requests = world.emu.requests.length;
    await fake.sendSlashCommand({ command: '/summarize', text: `--count=400 <#${busy}|busy>` });
    await world.herald.settled();
    expect(world.emu.requests.length - requests).toBeGreaterThan(2);
    const shown = ephemeralSince(before);
    const text = shown.map((m) => String(m.text)).join('\n');
    const leftOut = Number(/the oldest (\d+) messages, before .+, were left out\._/.exec(text)?.[1]);
    expect(leftOut).toBeGreaterThan(0);
    expect(text).toMatch(/^Echo: Part 1 \(.+\):\nEcho: \[1\] bob \(.+\): status update \d+/);
    const links = sourceLinks(shown.at(-1)!.blocks);
    expect(links[0]).toBe(permalink(busy, messages[leftOut]!.ts));
    expect(links.every((link) => messages.some((m) => permalink(busy, m.ts) === link))).toBe(true);
  });

  it('the Summarize thread shortcut and "@Herald summarize" summarize the thread for the asker alone', async () => {
    const root = String(fake.events.message({ text: 'Which venue for the offsite?', user: bob, channel: fake.channelId }).ts);
    const replies = ['The lake house is free in June.', 'Booked the lake house.'].map((text, i) =>
      String(fake.events.message({ text, user: i === 0 ? fake.userId : bob, channel: fake.channelId, thread_ts: root }).ts),
    );
    const thread = [root, ...replies].map((ts) => permalink(fake.channelId, ts));

    let before = fake.ephemeralMessages().length;
    const delivery = await fake.sendInteractive(fake.messageShortcutPayload({ callbackId: 'summarize_thread', messageTs: replies[0]! }));
    expect(delivery.status).toBe(200);
    await world.herald.settled();
    let [summary, sources] = ephemeralSince(before);
    expect(summary).toMatchObject({ channel: fake.channelId, thread_ts: root });
    expect(String(summary!.text)).toMatch(
      /^Echo: \[1\] bob \(.+\): Which venue for the offsite\?\n\[2\] alice .*\n\[3\] bob .*Booked the lake house\.$/,
    );
    expect(sourceLinks(sources!.blocks)).toEqual(thread);

    before = fake.ephemeralMessages().length;
    const mention = fake.events.appMention({ text: 'summarize', thread_ts: root });
    await fake.deliverEvent(mention);
    await fake.deliverEvent({ ...fake.events.message({ text: String(mention.text), channel: fake.channelId, thread_ts: root }), ts: mention.ts });
    await world.herald.settled();
    [summary, sources] = ephemeralSince(before);
    expect(summary).toMatchObject({ channel: fake.channelId, thread_ts: root });
    expect(sourceLinks(sources!.blocks)).toEqual(thread);
    expect(ephemeralSince(before)).toHaveLength(2);
    expect(fake.botMessages(fake.channelId).filter((m) => m.thread_ts === root)).toHaveLength(0);
  });
});
