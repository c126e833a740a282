import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { ChannelType } from 'discord.js';
import type { Schedule } from '../../src/schedules/schedule.ts';
import { DiscordScheduleDelivery } from '../../adapters/discord/schedule-delivery.ts';
import { RouteRateLimits } from '../../adapters/discord/route-rate-limits.ts';
import { HistoryCache } from '../../src/workspace/history-cache.ts';
import { silentLogger } from '../helpers/logger.ts';
import type { InteractionRecord, MessageRecord } from '../fakes/discord/index.ts';
import { startHarness, startInstance, type Harness } from './harness.ts';

const MINUTE = 60_000;

describe('discord: reminders and schedules', () => {
  let h: Harness;
  /** The scheduler's clock: starts now, moved on by the tests. */
  let now = Math.floor(Date.now() / MINUTE) * MINUTE;
  let standup: string;
  let launch: string;

  beforeAll(async () => {
    h = await startHarness({ env: { TZ: 'UTC', QUOTA_USER_PER_MINUTE: '100' }, now: () => now });
    await registerCommands(h.config);
    standup = h.fake.addChannel({ name: 'standup' }).id;
    launch = h.fake.addChannel({ name: 'launch' }).id;
  });

  afterAll(() => h?.close());

  /** Runs a command as `userId` (default Alice) and resolves once it has answered. */
  async function run(name: string, options: Record<string, unknown>, where: { channelId?: string; userId?: string; subcommand?: string } = {}) {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name, options: options as never, ...where });
    await h.repliesFinished(before + 1);
    return record;
  }
  const answer = (record: InteractionRecord) => h.fake.message(record.originalMessageId!)!;
  const idIn = (record: InteractionRecord) => /`([^`]+)`/.exec(answer(record).content)?.[1] ?? '';
  /** Moves the clock on and runs whatever became due, on this instance. */
  async function advanceTo(at: number): Promise<void> {
    now = at;
    await h.core.scheduler.tick();
  }
  const schedules = (): Promise<Schedule[]> =>
    h.core.scheduler.service.list({ platform: 'discord', workspaceId: h.fake.guild.id, userId: h.fake.users.owner.id, isAdmin: true }, { all: true });

  it('a reminder arrives where it was set, in its thread or by DM, pinging its creator and nobody else', async () => {
    const { alice, bob } = h.fake.users;
    const set = await run('remind', { when: 'in 20 minutes', what: `stretch, @everyone and <@${bob.id}>` });
    expect(answer(set)).toMatchObject({ ephemeral: true });
    expect(answer(set).content).toMatch(/^⏰ Set: .+, here\. Its id is `[^`]+`/);
    const thread = h.fake.addChannel({ name: 'release', type: ChannelType.PublicThread, parentId: h.fake.textChannel.id, ownerId: alice.id });
    await run('remind', { when: 'in 20 minutes', what: 'reply to the release thread' }, { channelId: thread.id });
    await run('remind', { when: 'in 30 minutes', what: 'a private note', dm: true });

    await advanceTo(now + 19 * MINUTE);
    expect(h.botMessages(h.fake.textChannel.id)).toHaveLength(0);
    await advanceTo(now + MINUTE);
    const [reminder] = h.botMessages(h.fake.textChannel.id);
    expect(reminder!.content).toBe(`<@${alice.id}> ⏰ stretch, @everyone and <@${bob.id}>`);
    expect(reminder).toMatchObject({ mentionIds: [alice.id], mentionEveryone: false, mentionRoleIds: [] });
    expect(reminder!.allowedMentions).toEqual({ parse: [], users: [alice.id] });
    expect(String(reminder!.nonce)).toMatch(/^[\w-]{25}$/);
    expect(h.botMessages(thread.id).map((m) => m.content)).toEqual([`<@${alice.id}> ⏰ reply to the release thread`]);
    const dm = h.fake.dmChannelFor(alice.id).id;
    expect(h.botMessages(dm)).toHaveLength(0);
    await advanceTo(now + 10 * MINUTE);
    expect(h.botMessages(dm).map((m) => m.content)).toEqual(['⏰ a private note']);
    // Each ran once: nothing is due any more.
    await advanceTo(now + 60 * MINUTE);
    expect(h.botMessages(h.fake.textChannel.id)).toHaveLength(1);
    expect(await schedules()).toEqual([]);
  });

  it('lists and deletes: members their own, admins everyone’s in the server', async () => {
    const { alice, bob, owner } = h.fake.users;
    const mine = idIn(await run('remind', { when: 'tomorrow 9am', what: 'water the plants' }));
    const bobs = idIn(await run('remind', { when: 'every weekday at 9', what: 'standup notes' }, { userId: bob.id }));
    const listed = answer(await run('schedule', {}, { subcommand: 'list' }));
    expect(listed.content).toContain(`\`${mine}\` ⏰ “water the plants”`);
    expect(listed.content).not.toContain(bobs);

    const refused = answer(await run('schedule', { id: bobs }, { subcommand: 'delete' }));
    expect(refused).toMatchObject({ ephemeral: true });
    expect(refused.content).toMatch(/^⚠️ /);
    expect((await schedules()).map((s) => s.id).sort()).toEqual([mine, bobs].sort());

    const all = answer(await run('schedule', { all: true }, { subcommand: 'list', userId: owner.id }));
    expect(all.content).toContain(`\`${bobs}\` ⏰ “standup notes” · every weekday at 9 · next `);
    expect(all.content).toContain('by Bob');
    const weekly = idIn(await run('schedule', { when: 'every Friday at 17:00', prompt: 'What shipped this week?' }, { subcommand: 'create' }));
    const refusedRun = await run('schedule', { id: weekly }, { subcommand: 'run', userId: bob.id });
    expect(h.fake.message(refusedRun.followupIds.at(-1) ?? refusedRun.originalMessageId!)!.content).toMatch(/^⚠️ Only its creator/);
    const ran = await run('schedule', { id: weekly }, { subcommand: 'run' });
    expect(h.fake.message(ran.followupIds.at(-1) ?? ran.originalMessageId!)!.content).toBe(`Ran \`${weekly}\` once; its timetable stays as it was.`);
    expect(h.botMessages(h.fake.textChannel.id).at(-1)!.content).toMatch(/^Echo: \[Alice\]: What shipped this week\?/);
    expect((await schedules()).find((s) => s.id === weekly)).toMatchObject({ state: 'active', failures: 0 });
    expect(answer(await run('schedule', { id: weekly }, { subcommand: 'delete' })).content).toMatch(/^Deleted: `/);
    expect(answer(await run('schedule', { id: bobs }, { subcommand: 'delete', userId: owner.id })).content).toMatch(/^Deleted: `/);
    expect(answer(await run('schedule', { id: mine }, { subcommand: 'delete', userId: alice.id })).content).toMatch(/^Deleted: `/);
    expect(answer(await run('schedule', {}, { subcommand: 'list' })).content).toBe('You have no reminders or schedules here.');
    const unreadable = answer(await run('remind', { when: 'whenever you like', what: 'x' }));
    expect(unreadable.content).toMatch(/^⚠️ /);
    expect(await schedules()).toEqual([]);
  });

  it('/timezone sets the zone a member’s times are read in, refusing names that are not IANA zones', async () => {
    const { bob } = h.fake.users;
    expect(answer(await run('timezone', { zone: 'Mars/Olympus' }, { userId: bob.id })).content).toMatch(/^⚠️ "Mars\/Olympus" is not a time zone/);
    expect(answer(await run('timezone', { zone: 'europe/berlin' }, { userId: bob.id })).content).toMatch(
      /^Your time zone is Europe\/Berlin \(your own choice\)/,
    );
    const set = await run('remind', { when: 'tomorrow 9am', what: 'coffee' }, { userId: bob.id });
    const [reminder] = await schedules();
    expect(reminder).toMatchObject({ timezone: 'Europe/Berlin', creator: { id: bob.id } });
    const hour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(reminder!.nextRunAt!);
    expect(hour).toBe('09:00');
    expect(answer(set).content).toMatch(/09:00 CET, here\./);
    // An admin reading everyone's sees Bob's time in their own zone (the server's UTC).
    const inUtc = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit' }).format(reminder!.nextRunAt!);
    const listed = answer(await run('schedule', { all: true }, { subcommand: 'list', userId: h.fake.users.owner.id })).content;
    expect(listed).toContain(`“coffee” · next `);
    expect(listed).toContain(`, ${inUtc} UTC · here · by Bob`);
    expect(answer(await run('timezone', { zone: 'Asia/Tokyo', server: true }, { userId: bob.id })).content).toBe(
      'Only administrators can set the server’s time zone.',
    );
    const { owner } = h.fake.users;
    expect(answer(await run('timezone', { zone: 'Asia/Tokyo', server: true }, { userId: owner.id })).content).toBe(
      'The server’s time zone is now Asia/Tokyo, for members who chose none.',
    );
    expect(answer(await run('timezone', { zone: 'clear' }, { userId: bob.id })).content).toBe(
      'Cleared: times you give me are read in Asia/Tokyo again.',
    );
    await run('timezone', { zone: 'clear', server: true }, { userId: owner.id });
    expect(answer(await run('timezone', {}, { userId: bob.id })).content).toMatch(
      /^Your time zone is UTC \(Herald’s default; set yours with \/timezone zone:\); it is .+ there now\.$/,
    );
    await run('schedule', { id: reminder!.id }, { subcommand: 'delete', userId: bob.id });
  });

  it('a scheduled summary of a channel arrives with its citations; a run whose creator can no longer post is not posted', async () => {
    const { alice, bob } = h.fake.users;
    const lines = ['The build is green again.', 'Release notes are drafted.', 'We ship on Friday.'];
    for (const content of lines) h.fake.sendMessage({ channelId: launch, authorId: bob.id, content });
    const seeded = h.fake.messages(launch);
    const set = await run('schedule', { when: 'every day at 9:00', summarize: launch, channel: standup }, { subcommand: 'create' });
    expect(answer(set).content).toMatch(/^📰 Set: every day at 9:00, next .+, in <#\d+>\./);
    const [summary] = await schedules();
    await advanceTo(summary!.nextRunAt!);
    const [posted] = h.botMessages(standup);
    expect(posted!.content).toMatch(/^Echo: \[1\] Bob \(.+\): The build is green again\.\n\[2\] Bob .*\n\[3\] Bob .*We ship on Friday\.$/);
    const sources = String(posted!.embeds.find((e) => e.title === 'Sources')?.description ?? '');
    const jump = (m: MessageRecord) => `https://discord.com/channels/${h.fake.guild.id}/${m.channelId}/${m.id}`;
    expect([...sources.matchAll(/\]\((https:[^)]+)\)/g)].map((m) => m[1])).toEqual(seeded.map(jump));
    expect(posted!.mentionIds).toEqual([]);

    // Alice loses the right to post in #standup: the next run is refused and she is told, once, by DM.
    h.fake.channel(standup)!.permissionOverwrites.push({ id: alice.id, type: 1, allow: '0', deny: String(1n << 11n) });
    const dm = h.fake.dmChannelFor(alice.id).id;
    const notesBefore = h.botMessages(dm).length;
    await advanceTo((await schedules())[0]!.nextRunAt!);
    expect(h.botMessages(standup)).toHaveLength(1);
    expect(
      h
        .botMessages(dm)
        .slice(notesBefore)
        .map((m) => m.content)
        .join('\n'),
    ).toContain('you cannot read and post in #standup');
    // Set up now, a schedule there is refused at once, and one where Herald cannot post too.
    const refused = answer(await run('schedule', { when: 'every day at 10:00', prompt: 'news?', channel: standup }, { subcommand: 'create' }));
    expect(refused).toMatchObject({ ephemeral: true, content: '⚠️ I can’t set that up: you cannot read and post in #standup.' });
    const muted = h.fake.addChannel({
      name: 'muted',
      permissionOverwrites: [{ id: h.fake.botUser.id, type: 1, allow: '0', deny: String(1n << 11n) }],
    }).id;
    expect(answer(await run('remind', { when: 'in 5 minutes', what: 'x' }, { channelId: muted })).content).toBe(
      '⚠️ I can’t set that up: I cannot post in #muted.',
    );
    // Run by hand, it says why it cannot rather than that it ran.
    const ranByHand = await run('schedule', { id: summary!.id }, { subcommand: 'run' });
    expect(h.fake.message(ranByHand.followupIds.at(-1) ?? ranByHand.originalMessageId!)!.content).toBe(
      '⚠️ It could not run: you cannot read and post in #standup.',
    );
    // A summary of a channel Herald cannot read is refused as well.
    const hidden = h.fake.addChannel({
      name: 'hidden',
      permissionOverwrites: [{ id: h.fake.botUser.id, type: 1, allow: '0', deny: String(1n << 16n) }],
    }).id;
    expect(answer(await run('schedule', { when: 'every day at 9:00', summarize: hidden }, { subcommand: 'create' })).content).toBe(
      '⚠️ I can’t set that up: I cannot read #hidden.',
    );
    expect((await schedules()).map((s) => s.id)).toEqual([summary!.id]);
    await h.core.scheduler.service.delete(summary!.id, { platform: 'discord', workspaceId: h.fake.guild.id, userId: alice.id, isAdmin: false });
  });

  it('a run retried after its instance died between posting and recording it posts once, thanks to the nonce', async () => {
    const ops = h.fake.addChannel({ name: 'ops' }).id;
    await run('remind', { when: 'in 5 minutes', what: 'only once' }, { channelId: ops });
    const other = await startInstance({ fake: h.fake, emu: h.emu, store: h.core.store, env: { TZ: 'UTC' }, now: () => now });
    try {
      // This instance posts, then dies before it can record the run.
      const real = new DiscordScheduleDelivery({
        client: h.bot.client,
        core: h.core,
        history: new HistoryCache({ ttlMs: 1000 }),
        rateLimits: new RouteRateLimits(),
        logger: silentLogger,
      });
      h.core.scheduler.attach({
        platform: real.platform,
        idempotentPosts: real.idempotentPosts,
        mayRun: (schedule) => real.mayRun(schedule),
        notify: (schedule, text) => real.notify(schedule, text),
        async post(schedule, post, options) {
          await real.post(schedule, post, options);
          const { signal } = options;
          await new Promise((_resolve, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        },
      });
      now += 5 * MINUTE;
      const dying = h.core.scheduler.tick();
      await h.fake.waitFor(() => h.botMessages(ops).length === 1);
      await h.core.scheduler.stop();
      await dying;
      // The other instance finds the occurrence still due and runs it again with the same key.
      await other.core.scheduler.tick();
      const creates = h.fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/channels/${ops}/messages`));
      expect(creates).toHaveLength(2);
      expect(new Set(creates.map((r) => (r.body as { nonce: string }).nonce)).size).toBe(1);
      expect(h.botMessages(ops).map((m) => m.content)).toEqual([`<@${h.fake.users.alice.id}> ⏰ only once`]);
      await other.core.scheduler.tick();
      expect(h.botMessages(ops)).toHaveLength(1);
    } finally {
      await other.bot.stop();
      await other.core.close();
    }
  });
});
