import {
  ApplicationCommandOptionType,
  ButtonStyle,
  ComponentType,
  DiscordAPIError,
  MessageFlags,
  type ChatInputApplicationCommandData,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './index.ts';
import { readyClient } from './test-client.ts';

const ASK: ChatInputApplicationCommandData = {
  name: 'ask',
  description: 'Ask a question',
  options: [
    { type: ApplicationCommandOptionType.String, name: 'question', description: 'What to ask', required: true },
    { type: ApplicationCommandOptionType.Attachment, name: 'image', description: 'A picture' },
  ],
};

describe('fake discord: slash commands and interaction responses with discord.js', () => {
  let fake: FakeDiscord;
  let client: Client;

  function nextCommand(): Promise<ChatInputCommandInteraction> {
    return new Promise((resolve) => {
      const listener = (interaction: Interaction) => {
        if (!interaction.isChatInputCommand()) return;
        client.off('interactionCreate', listener);
        resolve(interaction);
      };
      client.on('interactionCreate', listener);
    });
  }

  beforeEach(async () => {
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    client = await readyClient(fake);
    await client.application!.commands.set([ASK]);
  });

  afterEach(async () => {
    await client.destroy();
    await fake.close();
  });

  it('registers commands by bulk overwrite, keeping ids of unchanged names, and lists them', async () => {
    const first = fake.commands()[0]!;
    expect(first).toMatchObject({ name: 'ask', type: 1, application_id: fake.applicationId });
    await client.application!.commands.set([ASK, { name: 'speak', description: 'Say it aloud' }]);
    expect(fake.commands().map((c) => c.name)).toEqual(['ask', 'speak']);
    expect(fake.commands()[0]!.id).toBe(first.id);
    const guildCommands = await client.guilds.cache.get(fake.guild.id)!.commands.set([{ name: 'local', description: 'Guild only' }]);
    expect(guildCommands.first()?.guildId).toBe(fake.guild.id);
    expect(fake.commands(fake.guild.id).map((c) => c.name)).toEqual(['local']);
    const fetched = await client.application!.commands.fetch();
    expect(fetched.map((c) => c.name).sort()).toEqual(['ask', 'speak']);
  });

  it('validates command shapes like Discord: lowercase names, descriptions, option order, unique names', async () => {
    const error = (await client
      .application!.commands.set([
        { name: 'Bad Name', description: 'x' },
        {
          name: 'order',
          description: 'x',
          options: [
            { type: ApplicationCommandOptionType.String, name: 'optional', description: 'x' },
            { type: ApplicationCommandOptionType.String, name: 'needed', description: 'x', required: true },
          ],
        },
        { name: 'dup', description: 'x' },
        { name: 'dup', description: 'y' },
      ])
      .catch((e: unknown) => e)) as DiscordAPIError;
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error.code).toBe(50035);
    expect(error.rawError).toMatchObject({
      errors: {
        0: { name: { _errors: [{ code: 'APPLICATION_COMMAND_INVALID_NAME' }] } },
        1: { options: { 1: { required: { _errors: [{ code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID' }] } } } },
        3: { name: { _errors: [{ code: 'APPLICATION_COMMANDS_DUPLICATE_NAME' }] } },
      },
    });
    expect(fake.commands().map((c) => c.name)).toEqual(['ask']);
  });

  it('builds a real APPLICATION_COMMAND interaction: options, member permissions, app_permissions, resolved attachment', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({
      name: 'ask',
      options: { question: 'what is this?', image: { attachment: { filename: 'cat.png', bytes: Buffer.from('png bytes') } } },
    });
    const interaction = await received;
    expect(interaction.id).toBe(record.id);
    expect(interaction.commandName).toBe('ask');
    expect(interaction.options.getString('question')).toBe('what is this?');
    expect(interaction.user.id).toBe(fake.users.alice.id);
    expect(interaction.guildId).toBe(fake.guild.id);
    expect(interaction.channelId).toBe(fake.textChannel.id);
    expect(interaction.memberPermissions?.has('SendMessages')).toBe(true);
    expect(interaction.appPermissions.has('AttachFiles')).toBe(true);
    expect(interaction.attachmentSizeLimit).toBe(10 * 1024 * 1024);
    const image = interaction.options.getAttachment('image')!;
    expect(image.name).toBe('cat.png');
    expect(image.ephemeral).toBe(true);
    expect(await (await fetch(image.url)).text()).toBe('png bytes');
    await interaction.reply('ok');
  });

  it('round-trips defer → editReply → followUp, with MESSAGE_CREATE/UPDATE for the public messages', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({ name: 'ask', options: { question: 'long one' } });
    const interaction = await received;
    await interaction.deferReply();
    const loading = fake.message(record.originalMessageId!)!;
    expect(loading.flags & MessageFlags.Loading).toBeTruthy();
    expect(loading.type).toBe(20);
    const edited = await interaction.editReply({ content: 'the answer', allowedMentions: { parse: [] } });
    expect(edited.id).toBe(loading.id);
    expect(fake.message(loading.id)).toMatchObject({ content: 'the answer', flags: 0, allowedMentions: { parse: [] } });
    const followUp = await interaction.followUp({ content: 'one more thing', files: [{ attachment: Buffer.from('report'), name: 'report.txt' }] });
    expect(followUp.id).not.toBe(loading.id);
    expect(fake.message(followUp.id)?.attachments[0]?.filename).toBe('report.txt');
    expect(record.callbacks).toMatchObject([{ type: 5, status: 204 }]);
    expect(record.followupIds).toEqual([followUp.id]);
    expect(fake.messages(fake.textChannel.id).map((m) => m.content)).toEqual(['the answer', 'one more thing']);
    const fetched = await interaction.fetchReply();
    expect(fetched.content).toBe('the answer');
    await interaction.deleteReply();
    expect(fake.message(loading.id)?.deleted).toBe(true);
  });

  it('the first followUp after a deferral replaces the thinking message and keeps its ephemerality', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({ name: 'ask', options: { question: 'private' } });
    const interaction = await received;
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const followUp = await interaction.followUp({ content: 'secret result' });
    expect(followUp.id).toBe(record.originalMessageId);
    expect(fake.message(followUp.id)).toMatchObject({ content: 'secret result', ephemeral: true });
    expect(fake.messages(fake.textChannel.id)).toHaveLength(0);
    expect(fake.dispatched('MESSAGE_CREATE')).toHaveLength(0);
  });

  it('replies with an attachment (multipart callback) and returns the message with_response', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({ name: 'ask', options: { question: 'draw' } });
    const interaction = await received;
    const response = await interaction.reply({
      content: 'here you go',
      files: [{ attachment: Buffer.from('OggS'), name: 'answer.ogg' }],
      withResponse: true,
    });
    expect(response.resource?.message?.content).toBe('here you go');
    expect(response.interaction.responseMessageId).toBe(record.originalMessageId);
    const callback = fake.requests.find((r) => r.route === '/interactions/:interaction_id/:interaction_token/callback')!;
    expect(callback.query).toEqual({ with_response: 'true' });
    expect(callback.files[0]?.field).toBe('files[0]');
    expect(callback.body).toMatchObject({ type: 4, data: { content: 'here you go' } });
    const attachment = fake.message(record.originalMessageId!)!.attachments[0]!;
    expect(attachment.contentType).toBe('audio/ogg');
  });

  it('keeps ephemeral replies out of the channel and answers a second ack with 40060', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({ name: 'ask', options: { question: 'quiet' } });
    const interaction = await received;
    await interaction.reply({ content: 'only you', flags: MessageFlags.Ephemeral });
    expect(fake.message(record.originalMessageId!)?.ephemeral).toBe(true);
    expect(fake.messages(fake.textChannel.id)).toHaveLength(0);
    const again = (await client.rest
      .post(`/interactions/${record.id}/${record.token}/callback`, {
        body: { type: 4, data: { content: 'twice' } },
        auth: false,
      })
      .catch((e: unknown) => e)) as DiscordAPIError;
    expect(again.code).toBe(40060);
  });

  it('expires interactions not answered within the response window (10062)', async () => {
    await client.destroy();
    await fake.close();
    fake = await startFakeDiscord({ interactionResponseTimeoutMs: 100 });
    client = await readyClient(fake);
    await client.application!.commands.set([ASK]);
    const received = nextCommand();
    fake.invokeCommand({ name: 'ask', options: { question: 'slow' } });
    const interaction = await received;
    await new Promise((resolve) => setTimeout(resolve, 150));
    const error = (await interaction.deferReply().catch((e: unknown) => e)) as DiscordAPIError;
    expect(error.code).toBe(10062);
  });

  it('refuses followups before the interaction is acknowledged', async () => {
    const received = nextCommand();
    const record = fake.invokeCommand({ name: 'ask', options: { question: 'x' } });
    await received;
    const error = (await client.rest
      .post(`/webhooks/${fake.applicationId}/${record.token}`, {
        body: { content: 'too early' },
        auth: false,
      })
      .catch((e: unknown) => e)) as DiscordAPIError;
    expect(error.code).toBe(10015);
  });

  it('handles a button click with UPDATE_MESSAGE (type 7) editing the message', async () => {
    const channel = client.channels.cache.get(fake.textChannel.id);
    if (!channel?.isSendable()) throw new Error('text channel missing');
    const message = await channel.send({
      content: 'pick',
      components: [
        { type: ComponentType.ActionRow, components: [{ type: ComponentType.Button, style: ButtonStyle.Primary, customId: 'yes', label: 'Yes' }] },
      ],
    });
    const clicked = new Promise<Interaction>((resolve) => client.once('interactionCreate', resolve));
    const record = fake.clickComponent({ messageId: message.id, customId: 'yes' });
    const interaction = await clicked;
    if (!interaction.isButton()) throw new Error('expected a button interaction');
    await interaction.update({ content: 'you said yes', components: [] });
    expect(record.responseType).toBe(7);
    expect(fake.message(message.id)).toMatchObject({ content: 'you said yes', components: [] });
  });
});
