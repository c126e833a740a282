import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { ChannelType } from 'discord.js';
import { Permission, type InteractionRecord, type MessageRecord } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

describe('discord: /summarize', () => {
  let h: Harness;
  let launch: string;
  let seeded: MessageRecord[];

  beforeAll(async () => {
    // A small context, so a few hundred messages need summarizing in parts.
    h = await startHarness({ fake: { rateLimits: ONE_SECOND_BUCKETS }, env: { CONTEXT_TOKENS: '3000', QUOTA_USER_PER_MINUTE: '100' } });
    await registerCommands(h.config);
    launch = h.fake.addChannel({ name: 'launch' }).id;
    const { alice, bob } = h.fake.users;
    const lines: Array<[string, string]> = [
      [bob.id, 'Shall we ship on Friday?'],
      [alice.id, 'The build is broken on main.'],
      [alice.id, 'I am looking into it.'],
      [bob.id, 'Fixed: a stale lock file.'],
      [bob.id, 'Release notes are drafted.'],
      [bob.id, 'Friday it is, then.'],
    ];
    for (const [authorId, content] of lines) h.fake.sendMessage({ channelId: launch, authorId, content });
    seeded = h.fake.messages(launch);
  });

  afterAll(() => h?.close());

  async function run(options: Record<string, unknown>, channelId = launch): Promise<InteractionRecord> {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name: 'summarize', channelId, options: options as never });
    await h.repliesFinished(before + 1);
    return record;
  }

  const answer = (record: InteractionRecord) => h.fake.message(record.originalMessageId!)!;
  const jumpLink = (m: MessageRecord) => `https://discord.com/channels/${h.fake.guild.id}/${m.channelId}/${m.id}`;
  /** The links of the sources embed, in their numbered order. */
  const sourceLinks = (message: MessageRecord) =>
    [...String(message.embeds.find((e) => e.title === 'Sources')?.description ?? '').matchAll(/\]\((https:[^)]+)\)/g)].map((m) => m[1]);

  it('summarizes the last messages for the asker alone, each point citing the messages it came from', async () => {
    const firstRequest = h.fake.requests.length;
    const record = await run({ count: 3 });
    expect(record.deferredEphemeral).toBe(true);
    // The deferral, one page of history, the summary in one edit and its sources in another.
    expect(h.fake.requests.slice(firstRequest).map((r) => `${r.method} ${r.route}`)).toEqual([
      'POST /interactions/:interaction_id/:interaction_token/callback',
      'GET /channels/:channel_id/messages',
      'PATCH /webhooks/:webhook_id/:webhook_token/messages/:message_id',
      'PATCH /webhooks/:webhook_id/:webhook_token/messages/:message_id',
    ]);
    const message = answer(record);
    expect(message.ephemeral).toBe(true);
    expect(message.content).toMatch(
      /^Echo: \[1\] Bob \(.+\): Fixed: a stale lock file\.\n\[2\] Bob .*Release notes are drafted\.\n\[3\] Bob .*Friday it is, then\.$/,
    );
    expect(sourceLinks(message)).toEqual(seeded.slice(3).map(jumpLink));
    expect(message.embeds[0]!.description).toContain('[#launch · Bob]');
    const request = h.emu.requests.at(-1)!.body as { max_completion_tokens: number; thinking: unknown; tools?: unknown };
    expect(request).toMatchObject({ max_completion_tokens: 500, thinking: { type: 'disabled' } });
    expect(request.tools).toBeUndefined();
  });

  it('summarizes a thread whole by default, citing its messages and none of its channel', async () => {
    const { alice, bob } = h.fake.users;
    const thread = h.fake.addChannel({ name: 'release date', type: ChannelType.PublicThread, parentId: launch, ownerId: bob.id });
    h.fake.sendMessage({ channelId: thread.id, authorId: bob.id, content: 'Which day do we pick?' });
    h.fake.sendMessage({ channelId: thread.id, authorId: alice.id, content: 'Tuesday, after the freeze.' });
    const inThread = h.fake.messages(thread.id);
    const message = answer(await run({}, thread.id));
    expect(message.ephemeral).toBe(true);
    expect(message.content).toMatch(/^Echo: \[1\] Bob .*Which day do we pick\?\n\[2\] Alice .*Tuesday, after the freeze\.$/);
    expect(sourceLinks(message)).toEqual(inThread.map(jumpLink));
    expect(message.content).not.toContain('Friday');
  });

  it('catches the asker up since they last wrote by default', async () => {
    const message = answer(await run({}));
    expect(message.content).toMatch(/^Echo: \[1\] Bob \(.+\): Fixed: a stale lock file\./);
    expect(sourceLinks(message)).toEqual(seeded.slice(3).map(jumpLink));
  });

  it('posts for everyone with post:true, and reads a range given by since', async () => {
    const message = answer(await run({ since: '1h', post: true }));
    expect(message.ephemeral).toBe(false);
    expect(sourceLinks(message)).toEqual(seeded.map(jumpLink));
    const refused = answer(await run({ since: 'whenever' }));
    expect(refused).toMatchObject({ ephemeral: true, content: 'I can\'t read "whenever" as a time: try 30m, 2h, today, yesterday or 9:00.' });
  });

  it('refuses in one line a channel the asker cannot read, asking the service nothing', async () => {
    const hidden = { id: h.fake.guild.id, type: 0 as const, allow: '0', deny: String(Permission.ViewChannel) };
    const member = (id: string) => ({ id, type: 1 as const, allow: String(Permission.ViewChannel | Permission.ReadMessageHistory), deny: '0' });
    const secret = h.fake.addChannel({ name: 'secret', permissionOverwrites: [hidden, member(h.fake.users.bob.id), member(h.fake.botUser.id)] }).id;
    h.fake.sendMessage({ channelId: secret, authorId: h.fake.users.bob.id, content: 'The launch codename is Falcon.' });
    const requests = h.emu.requests.length;
    const message = answer(await run({ channel: secret, count: 10 }));
    expect(message).toMatchObject({ ephemeral: true, content: "⚠️ You can't read #secret, so I won't read it for you." });
    expect(h.emu.requests.length).toBe(requests);
  });

  it('"Summarize from here" starts at the message pressed on, for the presser alone', async () => {
    const before = h.finished;
    const record = h.fake.runMessageCommand({ name: 'Summarize from here', messageId: seeded[1]!.id });
    await h.repliesFinished(before + 1);
    const message = answer(record);
    expect(message.ephemeral).toBe(true);
    expect(message.content).toMatch(/^Echo: \[1\] Alice \(.+\): The build is broken on main\./);
    expect(sourceLinks(message)).toEqual(seeded.slice(1).map(jumpLink));
  });

  it('summarizes a long range in parts, keeps citing the original messages and says what was left out', async () => {
    const busy = h.fake.addChannel({ name: 'busy' }).id;
    for (let i = 1; i <= 400; i += 1) {
      h.fake.sendMessage({
        channelId: busy,
        authorId: h.fake.users.bob.id,
        content: `status update ${i}: the launch checklist item ${i} has an owner now`,
      });
    }
    const messages = h.fake.messages(busy);
    const requestsBefore = h.emu.requests.length;
    const record = await run({ count: 400, channel: busy });
    const replies = [answer(record), ...record.followupIds.map((id) => h.fake.message(id)!)];
    const text = replies.map((m) => m.content).join('');
    const parts = h.emu.requests.length - requestsBefore - 1;
    expect(parts).toBeGreaterThan(1);
    const leftOut = Number(/the oldest (\d+) messages, before .+, were left out\._$/.exec(text)?.[1]);
    expect(leftOut).toBeGreaterThan(0);
    // The combined summary repeats the first part's summary first: its first point is the oldest message kept.
    expect(text).toMatch(/^Echo: Part 1 \(.+\):\nEcho: \[1\] Bob \(.+\): status update \d+/);
    const links = replies.flatMap(sourceLinks);
    expect(links[0]).toBe(jumpLink(messages[leftOut]!));
    expect(links.every((link) => messages.some((m) => jumpLink(m) === link))).toBe(true);
  });
});
