import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { isAllowed } from '../../adapters/discord/access-policy.ts';
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
      name: 'narrate', subcommand: 'start', userId: fake.users.bob.id, channelId: fake.textChannel.id, options: { channel: denied.id },
    });
    const answered = await fake.waitFor(() => record.originalMessageId && fake.message(record.originalMessageId));
    expect(answered).toMatchObject({ content: `Herald isn't available in <#${denied.id}>.`, ephemeral: true });
  });
});

describe('discord: the access rule', () => {
  const none: DiscordAccess = { allowGuilds: [], denyGuilds: [], allowChannels: [], denyChannels: [], allowRoles: [], denyRoles: [] };
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
