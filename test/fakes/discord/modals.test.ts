import {
  ApplicationCommandType,
  ComponentType,
  DiscordAPIError,
  MessageFlags,
  Routes,
  TextInputStyle,
  type APIModalInteractionResponseCallbackData,
  type Client,
  type Interaction,
  type MessageContextMenuCommandInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

const MODAL: APIModalInteractionResponseCallbackData = {
  custom_id: 'ask:1',
  title: 'Ask about this message',
  components: [
    {
      type: ComponentType.Label,
      label: 'Your question',
      component: { type: ComponentType.TextInput, custom_id: 'question', style: TextInputStyle.Paragraph, min_length: 3, max_length: 100 },
    },
    { type: ComponentType.Label, label: 'Share it', component: { type: ComponentType.Checkbox, custom_id: 'share', default: true } },
  ],
};

describe('fake discord: message commands and modals with discord.js', () => {
  let fake: FakeDiscord;
  let client: Client;

  function next<T extends Interaction>(is: (interaction: Interaction) => interaction is T): Promise<T> {
    return new Promise((resolve) => {
      const listener = (interaction: Interaction) => {
        if (!is(interaction)) return;
        client.off('interactionCreate', listener);
        resolve(interaction);
      };
      client.on('interactionCreate', listener);
    });
  }
  const isMenu = (i: Interaction): i is MessageContextMenuCommandInteraction => i.isMessageContextMenuCommand();
  const isSubmit = (i: Interaction): i is ModalSubmitInteraction => i.isModalSubmit();

  beforeAll(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    client = await readyClient(fake);
  });

  afterAll(async () => {
    await client.destroy();
    await fake.close();
  });

  it('registers message commands only without description or options, names as menus show them', async () => {
    await client.application!.commands.set([{ type: ApplicationCommandType.Message, name: 'Ask Herald…' }]);
    expect(fake.commands()).toEqual([expect.objectContaining({ type: 3, name: 'Ask Herald…', description: '' })]);
    const refused = await client
      .application!.commands.set([{ type: ApplicationCommandType.Message, name: 'Translate', description: 'no', options: [] } as never])
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect((refused as DiscordAPIError).rawError).toMatchObject({ code: 50035, errors: { 0: { description: expect.anything() } } });
  });

  it('runs a message command on a message: target_id, the message resolved, the user’s locale', async () => {
    const posted = fake.sendMessage({ channelId: fake.textChannel.id, authorId: fake.users.bob.id, content: 'hello there' });
    const pressed = next(isMenu);
    fake.runMessageCommand({ name: 'Ask Herald…', messageId: posted.id as string, locale: 'pt-BR' });
    const interaction = await pressed;
    expect(interaction.targetId).toBe(posted.id);
    expect(interaction.targetMessage.content).toBe('hello there');
    expect(interaction.targetMessage.author.id).toBe(fake.users.bob.id);
    expect(interaction.locale).toBe('pt-BR');
    await interaction.reply({ content: 'ok', flags: MessageFlags.Ephemeral });
  });

  it('validates a modal as Discord does, and submits what the user typed as a type 5 interaction', async () => {
    const posted = fake.sendMessage({ channelId: fake.textChannel.id, content: 'about this' });
    const bad = next(isMenu);
    fake.runMessageCommand({ name: 'Ask Herald…', messageId: posted.id as string });
    const refused = await (await bad).showModal({ ...MODAL, title: 'x'.repeat(46) }).catch((error: unknown) => error);
    expect((refused as DiscordAPIError).rawError).toMatchObject({ code: 50035, errors: { data: { title: expect.anything() } } });

    const pressed = next(isMenu);
    const record = fake.runMessageCommand({ name: 'Ask Herald…', messageId: posted.id as string });
    await (await pressed).showModal(MODAL);
    expect(() => fake.submitModal({ interactionId: record.id, userId: fake.users.bob.id, values: { question: 'why?' } })).toThrow(/only to the user/);
    expect(() => fake.submitModal({ interactionId: record.id, values: { question: 'no' } })).toThrow(/3–100 characters/);
    expect(() => fake.submitModal({ interactionId: record.id, values: {} })).toThrow(/required/);

    const submitted = next(isSubmit);
    const submit = fake.submitModal({ interactionId: record.id, values: { question: 'why is that?' } });
    const modal = await submitted;
    expect(modal.customId).toBe('ask:1');
    expect(modal.fields.getTextInputValue('question')).toBe('why is that?');
    expect(modal.fields.getCheckbox('share')).toBe(true);
    // discord.js offers no showModal on a submit: Discord takes no modal in answer to one.
    const again = await client.rest
      .post(Routes.interactionCallback(modal.id, modal.token), { body: { type: 9, data: MODAL } })
      .catch((error: unknown) => error);
    expect((again as DiscordAPIError).rawError).toMatchObject({ code: 50035, errors: { type: expect.anything() } });
    await modal.reply({ content: 'answered', flags: MessageFlags.Ephemeral });
    expect(fake.message(submit.originalMessageId!)).toMatchObject({ content: 'answered', ephemeral: true });
  });
});
