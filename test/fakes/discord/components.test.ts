import { DiscordAPIError, MessageFlags, PermissionFlagsBits, Routes, type Client, type Interaction } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Permission, startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

const row = (...buttons: object[]) => ({ type: 1, components: buttons });
const button = (custom_id: string, extra: object = {}) => ({ type: 2, style: 2, label: custom_id, custom_id, ...extra });

describe('fake discord: buttons on messages and their presses', () => {
  let fake: FakeDiscord;
  let client: Client;

  beforeAll(async () => {
    fake = await startFakeDiscord({ interactionResponseTimeoutMs: 300 });
    client = await readyClient(fake);
  });

  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  const post = (components: object[]) =>
    client.rest.post(Routes.channelMessages(fake.textChannel.id), { body: { content: 'pick', components } }).then(
      (message) => message as { id: string },
      (error: unknown) => error as DiscordAPIError,
    );

  it('refuses components the way Discord does: over 5 rows or 5 buttons a row, a long or repeated custom_id', async () => {
    const tooManyRows = await post(Array.from({ length: 6 }, (_, i) => row(button(`b${i}`))));
    const tooManyButtons = await post([row(...Array.from({ length: 6 }, (_, i) => button(`b${i}`)))]);
    const longId = await post([row(button('x'.repeat(101)))]);
    const repeated = await post([row(button('same')), row(button('same'))]);
    const noId = await post([row({ type: 2, style: 1, label: 'no id' })]);
    for (const refused of [tooManyRows, tooManyButtons, longId, repeated, noId]) {
      expect(refused).toBeInstanceOf(DiscordAPIError);
      expect((refused as DiscordAPIError).code).toBe(50035);
    }
    expect(JSON.stringify((tooManyRows as DiscordAPIError).rawError)).toContain('BASE_TYPE_MAX_LENGTH');
    expect(JSON.stringify((repeated as DiscordAPIError).rawError)).toContain('COMPONENT_CUSTOM_ID_DUPLICATED');
    expect(await post([row(...Array.from({ length: 5 }, (_, i) => button(`b${i}`)))])).toHaveProperty('id');
  });

  it('presses a button as a user, with the member permissions in the channel; refuses a disabled one', async () => {
    const moderator = fake.addUser({ username: 'moderator' });
    const role = fake.addRole({ name: 'Mods', permissions: Permission.ManageMessages });
    fake.addMember({ userId: moderator.id, roleIds: [role.id] });
    const message = (await post([row(button('go'), button('off', { disabled: true }))])) as { id: string };
    const heard: Interaction[] = [];
    const twoPresses = new Promise<void>((resolve) =>
      client.on('interactionCreate', (interaction) => {
        heard.push(interaction);
        if (heard.length === 2) resolve();
      }),
    );
    const byAlice = fake.pressButton({ messageId: message.id, button: 'go' });
    const byModerator = fake.pressButton({ messageId: message.id, button: 'go', userId: moderator.id });
    expect(() => fake.pressButton({ messageId: message.id, button: 'off' })).toThrow(/disabled/);
    await twoPresses;
    const [alice, mod] = heard;
    if (!alice?.isButton() || !mod?.isButton()) throw new Error('expected button presses');
    expect([alice.customId, alice.user.id, alice.message.id]).toEqual(['go', fake.users.alice.id, message.id]);
    expect(alice.memberPermissions?.has(PermissionFlagsBits.ManageMessages)).toBe(false);
    expect(mod.memberPermissions?.has(PermissionFlagsBits.ManageMessages)).toBe(true);

    await alice.deferUpdate();
    await alice.followUp({ content: 'only you see this', flags: MessageFlags.Ephemeral });
    expect(byAlice.responseType).toBe(6);
    expect(fake.message(byAlice.followupIds[0]!)).toMatchObject({ content: 'only you see this', ephemeral: true });
    await new Promise((resolve) => setTimeout(resolve, 350));
    const late = (await mod.deferUpdate().catch((error: unknown) => error)) as DiscordAPIError;
    expect(late.code).toBe(10062);
    expect(byModerator.responseType).toBeNull();
  });
});
