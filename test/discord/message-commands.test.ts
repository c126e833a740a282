import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { MessageFlag, type InteractionRecord } from '../fakes/discord/index.ts';
import { ONE_SECOND_BUCKETS, startHarness, type Harness } from './harness.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
const WAVEFORM = Buffer.alloc(16, 128).toString('base64');

describe('discord: message commands (a message’s Apps menu)', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      fake: { rateLimits: ONE_SECOND_BUCKETS },
      env: { QUOTA_USER_PER_MINUTE: '100' },
      emulator: { transcribe: () => 'see you at noon' },
    });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  /** Bob posts a message in the server's text channel; returns its id. */
  function bobPosts(content: string, attachments: Parameters<Harness['fake']['sendMessage']>[0]['attachments'] = [], flags?: number): string {
    const sent = h.fake.sendMessage({
      channelId: h.fake.textChannel.id,
      authorId: h.fake.users.bob.id,
      content,
      attachments,
      ...(flags && { flags }),
    });
    return sent.id as string;
  }

  /** Alice runs a message command on a message and waits until Herald has answered it. */
  async function press(name: string, messageId: string, locale?: string): Promise<InteractionRecord> {
    const before = h.finished;
    const record = h.fake.runMessageCommand({ name, messageId, ...(locale && { locale }) });
    await h.repliesFinished(before + 1);
    return record;
  }

  const answer = (record: InteractionRecord) => h.fake.message(record.originalMessageId!)!;
  const lastChat = () => JSON.stringify(h.emu.requests.filter((r) => r.endpoint === 'chat').at(-1)?.body);

  it('registers the menus as message commands: no description, no options, in servers and DMs', async () => {
    const registered = await registerCommands(h.config);
    expect(registered.messageCommands).toEqual(['Ask Herald…', 'Translate', 'Transcribe', 'Describe', 'Read aloud', 'Summarize from here']);
    expect(registered.names).not.toContain('Translate');
    const menus = h.fake.commands().filter((c) => c.type === 3);
    expect(menus.map((c) => c.name)).toEqual(registered.messageCommands);
    for (const menu of menus) expect(menu).toMatchObject({ description: '', contexts: [0, 1] });
    for (const menu of menus) expect(menu.options).toBeUndefined();
  });

  it('Translate answers the presser alone, in their Discord language, from the message', async () => {
    const id = bobPosts(`Good morning, <@${h.fake.users.alice.id}>! The meeting moved to noon.`);
    const record = await press('Translate', id, 'fr');
    expect(record.callbacks.map((c) => c.type)).toEqual([5]);
    const reply = answer(record);
    expect(reply.ephemeral).toBe(true);
    expect(reply.flags & MessageFlag.Ephemeral).toBe(MessageFlag.Ephemeral);
    expect(lastChat()).toContain('Translate that message into French');
    expect(lastChat()).toContain('Good morning, @Alice! The meeting moved to noon.');
    expect(reply.content).toContain('into French');
    expect(h.botMessages(h.fake.textChannel.id)).toHaveLength(0);
    // The channel's own conversation (where /ask answers) never saw it.
    const before = h.finished;
    const asked = h.fake.invokeCommand({ name: 'ask', options: { question: 'what did I just ask?' } });
    await h.repliesFinished(before + 1);
    expect(lastChat()).not.toContain('Translate that message');
    h.fake.deleteUserMessage({ channelId: h.fake.textChannel.id, messageId: asked.originalMessageId! });

    const portuguese = await press('Translate', id, 'pt-BR');
    expect(lastChat()).toContain('into Brazilian Portuguese');
    expect(answer(portuguese).ephemeral).toBe(true);
  });

  it('Ask Herald… opens a modal, then answers the question with the message and its image', async () => {
    const id = bobPosts('Is this the right logo?', [{ filename: 'logo.png', bytes: fixture('images/marker.png') }]);
    const opened = h.fake.runMessageCommand({ name: 'Ask Herald…', messageId: id });
    await h.fake.waitFor(() => opened.callbacks.length > 0);
    const [modal] = opened.callbacks;
    expect(modal).toMatchObject({ type: 9, status: 204 });
    expect((modal!.data!.title as string).length).toBeLessThanOrEqual(45);
    expect(modal!.data!.components).toEqual([
      expect.objectContaining({ type: 18, label: 'Your question', component: expect.objectContaining({ type: 4, style: 2, max_length: 4000 }) }),
      expect.objectContaining({ type: 18, component: expect.objectContaining({ type: 23 }) }),
    ]);

    const before = h.finished;
    const submitted = h.fake.submitModal({ interactionId: opened.id, values: { input: 'What colour is it?' } });
    await h.repliesFinished(before + 1);
    const reply = answer(submitted);
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(/^Echo: \[Alice\]: \(replying to Bob: "Is this the right logo\?"\)\nWhat colour is it\?/);
    expect(reply.content).toContain('I see 1 image.');

    const again = h.fake.runMessageCommand({ name: 'Ask Herald…', messageId: id });
    await h.fake.waitFor(() => again.callbacks.length > 0);
    const shared = h.fake.submitModal({ interactionId: again.id, values: { input: 'Summarize it for the team.', public: true } });
    await h.repliesFinished(before + 2);
    expect(answer(shared).ephemeral).toBe(false);
    expect(h.botMessages(h.fake.textChannel.id).map((m) => m.id)).toEqual([answer(shared).id]);
  });

  it('Transcribe reads a voice message; Describe an image', async () => {
    const voice = bobPosts(
      '',
      [{ filename: 'voice-message.ogg', bytes: fixture('audio/voice-note.ogg'), durationSecs: 2.4, waveform: WAVEFORM }],
      MessageFlag.IsVoiceMessage,
    );
    const transcribed = answer(await press('Transcribe', voice));
    expect(transcribed).toMatchObject({ ephemeral: true });
    expect(transcribed.content).toBe('🎙️ **Voice message**\n> see you at noon');

    const photo = bobPosts('our new office', [{ filename: 'office.heic', bytes: fixture('images/marker.heic') }]);
    const described = answer(await press('Describe', photo));
    expect(described.ephemeral).toBe(true);
    expect(described.content).toMatch(/^Echo: \[Alice\]: Describe this image\.\nI see 1 image\./);
  });

  it('Read aloud answers with a voice message of the text, for the presser alone', async () => {
    const id = bobPosts('The build is green again.');
    const record = await press('Read aloud', id);
    const tts = h.emu.requests.filter((r) => r.endpoint === 'chat').at(-1)!;
    expect(JSON.stringify(tts.body)).toContain('The build is green again.');
    expect(record.followupIds).toHaveLength(1);
    const voice = h.fake.message(record.followupIds[0]!)!;
    expect(voice.flags & MessageFlag.IsVoiceMessage).toBe(MessageFlag.IsVoiceMessage);
    expect(voice.ephemeral).toBe(true);
    expect(voice.attachments[0]!.bytes.subarray(0, 4).toString('latin1')).toBe('OggS');
  });

  it('refuses in one line when the message holds nothing of the kind, without calling the service', async () => {
    const text = bobPosts('just words');
    const image = bobPosts('', [{ filename: 'p.png', bytes: fixture('images/marker.png') }]);
    const calls = h.emu.requests.length;
    const refusals: [string, string, string][] = [
      ['Transcribe', text, 'That message has no voice message or audio file to transcribe.'],
      ['Describe', text, 'That message has no image to describe.'],
      ['Read aloud', image, 'That message has no text to read aloud.'],
      ['Translate', image, 'That message has no text to translate.'],
    ];
    for (const [name, id, refusal] of refusals) {
      const reply = answer(await press(name, id));
      expect(reply).toMatchObject({ content: refusal, ephemeral: true });
    }
    expect(h.emu.requests.length).toBe(calls);
  });

  it('works in a DM with Herald too, on Herald’s own answer', async () => {
    const before = h.finished;
    h.fake.sendMessage({ channelId: h.fake.dmChannel.id, content: 'Bonjour' });
    await h.repliesFinished(before + 1);
    const [reply] = h.botMessages(h.fake.dmChannel.id);
    const record = await press('Translate', reply!.id, 'de');
    expect(answer(record)).toMatchObject({ channelId: h.fake.dmChannel.id, ephemeral: true });
    expect(lastChat()).toContain('Translate that message into German');
    expect(lastChat()).toContain('(replying to Herald: \\"Echo: Bonjour\\")');

    const opened = h.fake.runMessageCommand({ name: 'Ask Herald…', messageId: reply!.id });
    await h.fake.waitFor(() => opened.callbacks.length > 0);
    const asked = h.finished;
    const submitted = h.fake.submitModal({ interactionId: opened.id, values: { input: 'Why French?' } });
    await h.repliesFinished(asked + 1);
    expect(answer(submitted).content).toBe('Echo: (replying to Herald: "Echo: Bonjour")\nWhy French?');
  });

  it('a spent quota refuses the next menu press, to the presser alone', async () => {
    const channel = h.fake.addChannel({ name: 'strict' });
    await h.core.engine.updateSettings({ platform: 'discord', workspaceId: h.fake.guild.id, channelId: channel.id }, { userRequestsPerMinute: 1 });
    const sent = h.fake.sendMessage({ channelId: channel.id, authorId: h.fake.users.alice.id, content: 'Read me twice.' });
    const pressAsBob = async () => {
      const before = h.finished;
      const record = h.fake.runMessageCommand({ name: 'Read aloud', messageId: sent.id as string, userId: h.fake.users.bob.id });
      await h.repliesFinished(before + 1);
      return answer(record);
    };
    expect((await pressAsBob()).content).toBe('🔊');
    expect(await pressAsBob()).toMatchObject({
      content: expect.stringMatching(/^You've reached your limit of 1 request per minute/),
      ephemeral: true,
    });
  });

  it('a modal whose message was deleted meanwhile gets a clear answer', async () => {
    const id = bobPosts('soon gone');
    const opened = h.fake.runMessageCommand({ name: 'Ask Herald…', messageId: id });
    await h.fake.waitFor(() => opened.callbacks.length > 0);
    h.fake.deleteUserMessage({ channelId: h.fake.textChannel.id, messageId: id });
    const before = h.finished;
    const submitted = h.fake.submitModal({ interactionId: opened.id, values: { input: 'what was it?' } });
    await h.repliesFinished(before + 1);
    expect(answer(submitted)).toMatchObject({
      content: "I can't read that message any more: it was deleted, or I can't see its channel.",
      ephemeral: true,
    });
  });
});
