import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { DirectMessageAccess, isAllowed, type MemberDirectory } from '../../adapters/discord/access-policy.ts';
import type { DiscordAccess } from '../../src/config/config.ts';
import { ChannelType, type ChannelRecord, type RoleRecord } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

describe('discord: allow and deny lists', () => {
  let h: Harness;
  let denied: ChannelRecord;
  let helpers: RoleRecord;

  beforeAll(async () => {
    h = await startHarness({
      env: (fake) => {
        denied = fake.addChannel({ name: 'off-limits' });
        helpers = fake.addRole({ name: 'helpers' });
        fake.addMember({ userId: fake.users.bob.id, roleIds: [helpers.id] });
        return { DISCORD_DENY_CHANNELS: denied.id, DISCORD_ALLOW_ROLES: helpers.id };
      },
    });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  it('answers only members with an allowed role, never in a denied channel or its threads, and always in DMs', async () => {
    const { fake } = h;
    const thread = fake.addChannel({ name: 'denied thread', type: ChannelType.PublicThread, parentId: denied.id, ownerId: fake.botUser.id });
    fake.sendMessage({ channelId: denied.id, authorId: fake.users.bob.id, content: `${h.mention} in the denied channel` });
    fake.sendMessage({ channelId: thread.id, authorId: fake.users.bob.id, content: 'in its thread' });
    fake.sendMessage({ channelId: fake.textChannel.id, content: `${h.mention} alice has no helper role` });
    let before = h.finished;
    fake.sendMessage({ channelId: fake.textChannel.id, authorId: fake.users.bob.id, content: `${h.mention} bob is a helper` });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(fake.textChannel.id).map((m) => m.content)).toEqual(['Echo: [Bob]: bob is a helper']);
    expect(h.botMessages(denied.id)).toEqual([]);
    expect(h.botMessages(thread.id)).toEqual([]);

    before = h.finished;
    fake.sendMessage({ channelId: fake.dmChannel.id, content: 'a DM from alice' });
    await h.repliesFinished(before + 1);
    expect(h.botMessages(fake.dmChannel.id).map((m) => m.content)).toEqual(['Echo: a DM from alice']);
  });

  it('refuses slash commands where Herald may not answer, quietly (ephemeral)', async () => {
    const { fake } = h;
    const record = fake.invokeCommand({ name: 'ask', userId: fake.users.bob.id, channelId: denied.id, options: { question: 'hello?' } });
    const answered = await fake.waitFor(() => record.originalMessageId && fake.message(record.originalMessageId));
    expect(answered).toMatchObject({ content: "Herald isn't available here.", ephemeral: true });
  });

  it('refuses a command naming a denied channel from an allowed one: /narrate start channel:', async () => {
    const { fake } = h;
    const record = fake.invokeCommand({
      name: 'narrate',
      subcommand: 'start',
      userId: fake.users.bob.id,
      channelId: fake.textChannel.id,
      options: { channel: denied.id },
    });
    const answered = await fake.waitFor(() => record.originalMessageId && fake.message(record.originalMessageId));
    expect(answered).toMatchObject({ content: `Herald isn't available in <#${denied.id}>.`, ephemeral: true });
  });
});

describe('discord: direct messages kept to members (DISCORD_DMS=members)', () => {
  let h: Harness;
  let helpers: RoleRecord;

  beforeAll(async () => {
    h = await startHarness({
      env: (fake) => {
        helpers = fake.addRole({ name: 'helpers' });
        fake.addMember({ userId: fake.users.bob.id, roleIds: [helpers.id] });
        return { DISCORD_ALLOW_ROLES: helpers.id, DISCORD_DMS: 'members' };
      },
    });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  it("refuses a command in a DM from someone without an allowed role in Herald's servers, and runs a member's", async () => {
    const { fake } = h;
    const ask = (userId: string) => {
      const record = fake.invokeCommand({ name: 'usage', userId, channelId: fake.dmChannelFor(userId).id });
      return fake.waitFor(() => record.originalMessageId && fake.message(record.originalMessageId));
    };
    expect(await ask(fake.users.alice.id)).toMatchObject({
      content: "Herald answers direct messages only from members of the servers it's set up for.",
      ephemeral: true,
    });
    expect(await ask(fake.users.bob.id)).toMatchObject({ content: expect.stringMatching(/^\*\*You today:\*\*/) });
  });

  it('leaves a direct message from someone without an allowed role unanswered, and answers a member with one', async () => {
    const { fake } = h;
    const outsider = fake.addUser({ username: 'outsider' });
    const member = fake.addUser({ username: 'member' });
    fake.addMember({ userId: outsider.id, roleIds: [] });
    fake.addMember({ userId: member.id, roleIds: [helpers.id] });
    const outsiderDm = fake.dmChannelFor(outsider.id);
    const memberDm = fake.dmChannelFor(member.id);

    fake.sendMessage({ channelId: outsiderDm.id, authorId: outsider.id, content: 'hello from outside' });
    await fake.waitFor(() => fake.requests.find((r) => r.route === '/guilds/:guild_id/members/:user_id' && r.params.user_id === outsider.id), {
      description: "the look-up of the outsider's roles",
    });
    const before = h.finished;
    fake.sendMessage({ channelId: memberDm.id, authorId: member.id, content: 'hello from a helper' });
    await h.repliesFinished(before + 1);

    expect(h.botMessages(memberDm.id).map((m) => m.content)).toEqual(['Echo: hello from a helper']);
    expect(h.botMessages(outsiderDm.id)).toEqual([]);
  });
});

describe('discord: DirectMessageAccess', () => {
  const lists: DiscordAccess = {
    allowGuilds: [],
    denyGuilds: ['g-denied'],
    allowChannels: [],
    denyChannels: [],
    allowRoles: ['helper'],
    denyRoles: [],
    directMessages: 'members',
  };
  function directory(roles: Record<string, Record<string, string[]>>) {
    const lookups: string[] = [];
    const dir: MemberDirectory = {
      guildIds: () => Object.keys(roles),
      rolesOf: async (guildId, userId) => {
        lookups.push(`${guildId}:${userId}`);
        return roles[guildId]?.[userId];
      },
    };
    return { dir, lookups };
  }

  it('lets every DM through unless the setting asks for members', async () => {
    const { dir, lookups } = directory({});
    expect(await new DirectMessageAccess(undefined, dir).allows('u1')).toBe(true);
    expect(await new DirectMessageAccess({ ...lists, directMessages: 'all' }, dir).allows('u1')).toBe(true);
    expect(lookups).toEqual([]);
  });

  it('needs an allowed role in an allowed server, and caches each answer for ten minutes', async () => {
    let now = 0;
    const { dir, lookups } = directory({ 'g-denied': { ada: ['helper'] }, g1: { bo: ['helper'], cy: [] } });
    const gate = new DirectMessageAccess(lists, dir, () => now);
    expect(await Promise.all(['ada', 'bo', 'cy', 'dee'].map((id) => gate.allows(id)))).toEqual([false, true, false, false]);
    const first = lookups.length;
    expect(await gate.allows('bo')).toBe(true);
    expect(await gate.allows('cy')).toBe(false);
    expect(lookups).toHaveLength(first);
    now += 10 * 60_000 + 1;
    await gate.allows('bo');
    expect(lookups).toHaveLength(first + 1);
  });

  it('refuses, without remembering it, when a look-up fails', async () => {
    let fail = true;
    const dir: MemberDirectory = {
      guildIds: () => ['g1'],
      rolesOf: async () => {
        if (fail) throw new Error('Discord is down');
        return ['helper'];
      },
    };
    const gate = new DirectMessageAccess(lists, dir);
    expect(await gate.allows('bo')).toBe(false);
    fail = false;
    expect(await gate.allows('bo')).toBe(true);
  });
});

describe('discord: the access rule', () => {
  const none: DiscordAccess = {
    allowGuilds: [],
    denyGuilds: [],
    allowChannels: [],
    denyChannels: [],
    allowRoles: [],
    denyRoles: [],
    directMessages: 'all',
  };
  const where = { guildId: 'g1', channelIds: ['c1', 'parent'], roleIds: ['r1'] };

  it('lets everything through without lists, and direct messages through any lists', () => {
    expect(isAllowed(undefined, where)).toBe(true);
    expect(isAllowed(none, where)).toBe(true);
    expect(isAllowed({ ...none, allowGuilds: ['other'], allowChannels: ['other'] }, { channelIds: ['dm'], roleIds: [] })).toBe(true);
  });

  it('needs every allow list to match and lets a deny entry win', () => {
    expect(isAllowed({ ...none, allowGuilds: ['g2'] }, where)).toBe(false);
    expect(isAllowed({ ...none, allowChannels: ['parent'] }, where)).toBe(true);
    expect(isAllowed({ ...none, allowChannels: ['parent'], denyChannels: ['c1'] }, where)).toBe(false);
    expect(isAllowed({ ...none, allowRoles: ['r2'] }, where)).toBe(false);
    expect(isAllowed({ ...none, allowRoles: ['r1'], denyRoles: ['r1'] }, where)).toBe(false);
    expect(isAllowed({ ...none, denyGuilds: ['g1'] }, where)).toBe(false);
  });
});
