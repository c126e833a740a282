import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/schedules/schedule.ts';
import type { FakeSlack, Json, StoredMessage } from '../fakes/slack/index.ts';
import { startHerald, startSlackWorld, stopSlackWorld, type SlackWorld } from './herald-on-fake-slack.ts';

const MINUTE = 60_000;

/** The permalinks an answer's source lines link to, in their numbered order. */
function sourceLinks(blocks: unknown): string[] {
  const list = (typeof blocks === 'string' ? JSON.parse(blocks) : (blocks ?? [])) as Json[];
  const texts = list.flatMap((b) => (b.type === 'context' ? (b.elements as Array<{ text: string }>) : []));
  return texts.flatMap((e) => [...e.text.matchAll(/<https:\/\/[^/]+(\/archives\/[^|?>]+)/g)].map((m) => m[1]!));
}

describe('slack: reminders and schedules', () => {
  let world: SlackWorld;
  let fake: FakeSlack;
  /** The scheduler's clock: starts now, moved on by the tests. */
  let now = Math.floor(Date.now() / MINUTE) * MINUTE;

  beforeAll(async () => {
    world = await startSlackWorld({ env: { TZ: 'UTC' }, now: () => now });
    fake = world.fake;
    Object.assign(fake.workspace.users.get(fake.userId)!, { tz: 'America/New_York', tz_offset: -18_000 });
  });

  afterAll(() => stopSlackWorld(world));

  const scheduler = () => world.herald.core.scheduler;
  const schedules = (): Promise<Schedule[]> =>
    scheduler().service.list({ platform: 'slack', workspaceId: fake.teamId, userId: fake.userId, isAdmin: true }, { all: true });
  /** What Herald told alice alone through the command's response_url, latest first. */
  const told = () => String(fake.responseUrlPosts.at(-1)?.body.text ?? '');
  async function command(name: string, text: string, by: { channel?: string; user?: string } = {}): Promise<string> {
    const before = fake.responseUrlPosts.length;
    await fake.sendSlashCommand({ command: name, text, ...by });
    await world.herald.settled();
    expect(fake.responseUrlPosts.length).toBe(before + 1);
    return told();
  }
  async function advanceTo(at: number): Promise<void> {
    now = at;
    await scheduler().tick();
    await world.herald.settled();
  }
  const dmOf = (user: string) => [...fake.workspace.channels.values()].find((c) => c.is_im && c.user === user)!.id;

  it('/herald-remind posts in the channel at the time, mentioning alice alone, read in her Slack time zone', async () => {
    const text = await command('/herald-remind', 'in 20 minutes --what="stretch, <!channel>"');
    expect(text).toMatch(/^⏰ Set: .+, here\. Its id is `[^`]+`/);
    await command('/herald-remind', 'tomorrow 9am --what="call the bank" --dm');
    const [, tomorrow] = (await schedules()).sort((a, b) => a.nextRunAt! - b.nextRunAt!);
    expect(tomorrow).toMatchObject({ timezone: 'America/New_York', target: { type: 'direct' } });
    expect(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', hourCycle: 'h23' }).format(tomorrow!.nextRunAt!)).toBe(
      '09',
    );

    await advanceTo(now + 20 * MINUTE);
    const [reminder] = fake.botMessages(fake.channelId);
    expect(reminder!.text).toBe(`<@${fake.userId}> ⏰ stretch, &lt;!channel&gt;`);
    await advanceTo(tomorrow!.nextRunAt!);
    expect(fake.botMessages(dmOf(fake.userId)).at(-1)!.text).toBe('⏰ call the bank');
    expect(await schedules()).toEqual([]);
  });

  it('/herald-schedule lists and deletes; "Remind me about this" asks when in a modal and reminds by DM with a link', async () => {
    const id = /`([^`]+)`/.exec(await command('/herald-remind', 'next Monday 10:00 --what="review the roadmap"'))![1]!;
    expect(await command('/herald-schedule', 'list')).toContain(`\`${id}\` ⏰ “review the roadmap”`);
    expect(await command('/herald-schedule', `delete ${id}`)).toMatch(/^Deleted: /);
    expect(await command('/herald-schedule', 'list')).toBe('You have no reminders or schedules here.');
    expect(await command('/herald-schedule', 'later')).toMatch(
      /^“later” is not something \/herald-schedule does\. Tell \/herald-schedule what to do first:\n• \/herald-schedule create/,
    );

    const [message] = fake.workspace.seedHistory(fake.channelId, [{ user: fake.userId, text: 'Quarterly report due', at: now - MINUTE }]);
    await fake.sendInteractive(fake.messageShortcutPayload({ callbackId: 'remind_about_message', messageTs: message!.ts }));
    await world.herald.settled();
    const modal = fake.workspace.openedViews.at(-1)!;
    const refused = await fake.sendInteractive(fake.interactions.submitView({ viewId: String(modal.id), values: { when: 'whenever' } }));
    expect(JSON.parse(refused.responseBody)).toMatchObject({ response_action: 'errors', errors: { when: expect.any(String) } });
    const accepted = await fake.sendInteractive(fake.interactions.submitView({ viewId: String(modal.id), values: { when: 'in 1 hour' } }));
    expect(accepted.responseBody).toBe('');
    await world.herald.settled();
    const dm = dmOf(fake.userId);
    expect(fake.botMessages(dm).at(-1)!.text).toMatch(/^⏰ Set: .+, in your direct messages\./);
    await advanceTo(now + 60 * MINUTE);
    const reminder = fake.botMessages(dm).at(-1)!;
    expect(reminder.text).toMatch(/^⏰ “Quarterly report due” https:\/\/.+\/archives\//);
  });

  it('an admin manages everyone’s schedules, and no longer once demoted, though Slack’s profile of her is cached', async () => {
    const carol = fake.addUser({ name: 'carol' }).id;
    await command('/herald-remind', 'tomorrow 9am --what="water the plants" --dm', { user: carol });
    const [planted] = await schedules();
    const dana = Object.assign(fake.addUser({ name: 'dana' }), { is_admin: true });
    const everyone = await command('/herald-schedule', 'list --all', { user: dana.id });
    expect(everyone).toContain(`\`${planted!.id}\` ⏰ “water the plants” · next `);
    expect(everyone).toMatch(/ · in (\S+)'s direct messages · by \1$/m);
    expect(await command('/herald-schedule', `pause ${planted!.id}`, { user: dana.id })).toMatch(/^Paused: /);

    dana.is_admin = false;
    expect(await command('/herald-schedule', 'list --all', { user: dana.id })).toBe('Only administrators can list everyone’s schedules.');
    expect(await command('/herald-schedule', `delete ${planted!.id}`, { user: dana.id })).toBe(
      '⚠️ Only its creator or an admin of this server can change that one.',
    );
    expect(await schedules()).toEqual([expect.objectContaining({ id: planted!.id, state: 'paused' })]);
    await scheduler().service.delete(planted!.id, { platform: 'slack', workspaceId: fake.teamId, userId: carol, isAdmin: false });
  });

  it('a scheduled summary of a channel arrives with its citations', async () => {
    const bob = fake.addUser({ name: 'bob' }).id;
    const launch = fake.addChannel({ name: 'launch' }).id;
    fake.workspace.setMembers(launch, [fake.userId, fake.botUserId, bob]);
    const seeded = fake.workspace.seedHistory(
      launch,
      ['The build is green again.', 'Release notes are drafted.', 'We ship on Friday.'].map((text, i) => ({
        user: bob,
        text,
        at: now - (10 - i) * MINUTE,
      })),
    );
    expect(await command('/herald-schedule', `create every day at 9:00 --summarize=<#${launch}|launch>`)).toMatch(/^📰 Set: every day at 9:00/);
    expect(await command('/herald-schedule', 'list')).toMatch(new RegExp(`📰 summary of <#${launch}> · every day at 9:00 · next .+ · here$`));
    const [summary] = await schedules();
    await advanceTo(summary!.nextRunAt!);
    const posted = fake.botMessages(fake.channelId).at(-1)!;
    expect(JSON.stringify(posted.blocks ?? posted.text)).toContain('The build is green again.');
    const permalink = (m: StoredMessage) => `/archives/${launch}/p${m.ts.replace('.', '')}`;
    expect(sourceLinks(posted.blocks)).toEqual(seeded.map(permalink));
    await scheduler().service.delete(summary!.id, { platform: 'slack', workspaceId: fake.teamId, userId: fake.userId, isAdmin: false });
  });

  it('a run rechecks that its creator is still in the channel: once she has left, it is not posted and she is told', async () => {
    const side = fake.addChannel({ name: 'side-project' }).id;
    fake.workspace.setMembers(side, [fake.userId, fake.botUserId]);
    await fake.sendSlashCommand({ command: '/herald-remind', channel: side, text: 'in 10 minutes --what="demo prep"' });
    await world.herald.settled();
    fake.workspace.setMembers(side, [fake.botUserId]);
    const dm = dmOf(fake.userId);
    const before = fake.botMessages(dm).length;
    await advanceTo(now + 10 * MINUTE);
    expect(fake.botMessages(side)).toEqual([]);
    expect(
      fake
        .botMessages(dm)
        .slice(before)
        .map((m) => m.text),
    ).toEqual([expect.stringMatching(/could not run .*: you are not in #side-project$/)]);
    expect(await schedules()).toEqual([]);

    // Set up where she has left, or where Herald is not, it is refused at once, saying how to invite Herald.
    expect(await command('/herald-remind', 'in 10 minutes --what="x"', { channel: side })).toBe(
      '⚠️ I can’t set that up: you are not in #side-project.',
    );
    const quiet = fake.addChannel({ name: 'quiet', is_member: false }).id;
    expect(await command('/herald-remind', 'in 10 minutes --what="x"', { channel: quiet })).toMatch(
      /^⚠️ I can’t set that up: I am not in #quiet \(invite me with `\/invite @\w+`\)\.$/,
    );
    expect(await command('/herald-schedule', `create every day at 9:00 --summarize=<#${quiet}|quiet>`)).toMatch(
      /^⚠️ I can’t set that up: I am not in #quiet \(invite me with `\/invite @\w+`\)\.$/,
    );
    expect(await schedules()).toEqual([]);
  });

  it('a run interrupted mid-post by its instance dying is reported to its creator, not posted again', async () => {
    await command('/herald-remind', 'in 5 minutes --what="only once"');
    const other = await startHerald(fake, world.emu, {
      mode: 'http',
      store: world.herald.core.store,
      keepRequestUrl: true,
      env: { TZ: 'UTC' },
      now: () => now,
    });
    try {
      now += 5 * MINUTE;
      // Slack takes the post, but the instance dies before it hears back, let alone records the run.
      const held = fake.holdResponse('chat.postMessage');
      const dying = scheduler().tick();
      await held.reached;
      const stopping = scheduler().stop();
      held.release();
      await stopping;
      await dying;
      await other.core.scheduler.tick();
      await other.settled();
      const dm = dmOf(fake.userId);
      expect(fake.botMessages(dm).at(-1)!.text).toMatch(/interrupted/i);
      expect(fake.botMessages(fake.channelId).filter((m: StoredMessage) => m.text.includes('only once'))).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });
});
