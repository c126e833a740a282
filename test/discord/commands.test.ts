import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../adapters/discord/index.ts';
import { commands, messageActions } from '../../commands/index.ts';
import { MessageFlag, Permission, type InteractionRecord, type Json } from '../fakes/discord/index.ts';
import { startHarness, type Harness } from './harness.ts';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));

describe('discord: slash commands', () => {
  let h: Harness;

  beforeAll(async () => {
    // Every command here is Alice's, /say included since it counts against the same per-minute limit as questions.
    h = await startHarness({ env: { WEB_SEARCH: 'auto', QUOTA_USER_PER_MINUTE: '100' }, emulator: { transcribe: () => 'a recorded note' } });
  });

  afterAll(async () => {
    await h.close();
  });

  /** Runs a command and waits until Herald has finished answering it. */
  async function run(name: string, options: Record<string, unknown> = {}, userId?: string, subcommand?: string): Promise<InteractionRecord> {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name, options: options as never, ...(userId && { userId }), ...(subcommand && { subcommand }) });
    await h.repliesFinished(before + 1);
    return record;
  }

  const original = (record: InteractionRecord) => h.fake.message(record.originalMessageId!)!;

  it('registers every command globally or in one server by bulk overwrite, administrators-only ones hidden', async () => {
    const global = await registerCommands(h.config);
    expect(global).toEqual({ names: commands.map((c) => c.name), messageCommands: messageActions.map((a) => a.name) });
    expect(global.names).toEqual(expect.arrayContaining(['ask', 'say', 'transcribe', 'describe', 'reset', 'settings', 'usage']));
    const ids = h.fake.commands().map((c) => c.id);
    await registerCommands(h.config);
    expect(h.fake.commands().map((c) => c.id)).toEqual(ids);
    const settings = h.fake.commands().find((c) => c.name === 'settings')!;
    expect(settings.default_member_permissions).toBe('32');
    const voiceNotes = (settings.options as Json[]).find((o) => o.name === 'voice_notes')!;
    expect((voiceNotes.choices as Json[]).map((c) => c.value)).toEqual(['always', 'when-asked', 'off']);
    const narrate = h.fake.commands().find((c) => c.name === 'narrate')!;
    expect(narrate.options).toEqual([
      {
        type: 1,
        name: 'start',
        description: 'Start reading new messages aloud in your voice channel',
        options: [
          expect.objectContaining({ type: 7, name: 'channel', required: false, channel_types: [0, 5, 11, 12, 10, 2, 13] }),
          expect.objectContaining({ type: 3, name: 'voice' }),
          expect.objectContaining({ type: 3, name: 'style', max_length: 100 }),
        ],
      },
      { type: 1, name: 'stop', description: 'Stop reading aloud' },
    ]);
    const ask = h.fake.commands().find((c) => c.name === 'ask')!;
    expect(ask.default_member_permissions).toBeNull();
    expect((ask.options as Json[])[0]).toMatchObject({ name: 'question', type: 3, required: true, max_length: 4000 });

    const local = await registerCommands(h.config, { guildId: h.fake.guild.id });
    expect(local.guildId).toBe(h.fake.guild.id);
    expect(h.fake.commands(h.fake.guild.id)).toHaveLength(commands.length + messageActions.length);
  });

  it('/ask defers, then streams the answer into the response', async () => {
    h.emu.pace.tokensPerSecond = 150;
    const record = await run('ask', { question: 'long 120' });
    h.emu.pace.tokensPerSecond = 0;
    expect(record.callbacks.map((c) => c.type)).toEqual([5]);
    const answer = original(record);
    expect(answer.content.split(/\s+/)).toHaveLength(120);
    expect(answer.flags & MessageFlag.Loading).toBe(0);
    const edits = h.fake.requests.filter((r) => r.method === 'PATCH' && r.path.startsWith(`/webhooks/${h.fake.applicationId}/${record.token}/`));
    expect(edits.length).toBeGreaterThan(2);
    for (const edit of edits) expect(edit.body).toMatchObject({ allowed_mentions: { parse: [], replied_user: false } });
    expect(h.fake.rateLimitedCount).toBe(0);
  });

  it('/ask with search puts the sources embed under the answer', async () => {
    const record = await run('ask', { question: 'the latest on rockets', search: true });
    const answer = original(record);
    expect(answer.content).toMatch(/\[1\]/);
    expect(answer.embeds[0]).toMatchObject({ title: 'Sources' });
  });

  it('/say posts a native voice message: Ogg Opus, flag 8192, duration and waveform', async () => {
    const record = await run('say', { text: 'Hello there, this is Herald speaking.' });
    expect(original(record).content).toBe('🔊');
    expect(record.followupIds).toHaveLength(1);
    const voice = h.fake.message(record.followupIds[0]!)!;
    expect(voice.flags & MessageFlag.IsVoiceMessage).toBe(MessageFlag.IsVoiceMessage);
    expect(voice.content).toBe('');
    expect(voice.attachments).toHaveLength(1);
    const [file] = voice.attachments;
    expect(file!.filename).toMatch(/\.ogg$/);
    expect(file!.contentType).toBe('audio/ogg');
    expect(file!.bytes.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(file!.durationSecs).toBeGreaterThan(1);
    expect(Buffer.from(file!.waveform!, 'base64').length).toBeGreaterThan(0);
  });

  it('/say as a WAV file attaches it to the response', async () => {
    const record = await run('say', { text: 'Short one.', format: 'wav' });
    const [file] = original(record).attachments;
    expect(file?.filename).toBe('speech.wav');
    expect(file?.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(record.followupIds).toHaveLength(0);
  });

  it('/transcribe and /describe read the attached file', async () => {
    const transcribed = await run('transcribe', { audio: { attachment: { filename: 'note.ogg', bytes: fixture('audio/voice-note.ogg') } } });
    expect(original(transcribed).content).toBe('🎙️ **note.ogg**\n> a recorded note');
    const described = await run('describe', { image: { attachment: { filename: 'photo.heic', bytes: fixture('images/marker.heic') } } });
    expect(original(described).content).toMatch(/^Echo: \[Alice\]: Describe this image\.\nI see 1 image\.\nImage 1: image\/\w+ \d+x\d+$/);
  });

  it('/settings is for administrators only; its answers are ephemeral', async () => {
    const refused = await run('settings', { thinking: 'on' });
    expect(original(refused)).toMatchObject({ content: 'Only administrators can use /settings.', ephemeral: true });
    const saved = await run('settings', { thinking: 'on', scope: 'server' }, h.fake.users.owner.id);
    expect(original(saved).ephemeral).toBe(true);
    expect(original(saved).content).toMatch(/^Saved\. Settings for this server — thinking: on/);
    expect(await h.core.engine.getSettings({ platform: 'discord', workspaceId: h.fake.guild.id })).toEqual({ thinking: true });
  });

  it('/settings voice_notes in a direct message says it is a server setting', async () => {
    const before = h.finished;
    const record = h.fake.invokeCommand({ name: 'settings', channelId: h.fake.dmChannel.id, options: { voice_notes: 'off' } });
    await h.repliesFinished(before + 1);
    expect(original(record).content).toMatch(
      /^Settings for this channel — .*\n🎙️ Voice messages in direct messages are always transcribed and answered; voice_notes applies to servers\.$/,
    );
  });

  it("/ask shows the model's reasoning as a file only when asked to (thinking is on in this server now)", async () => {
    const plain = await run('ask', { question: 'why is the sky blue?' });
    expect(plain.followupIds).toHaveLength(0);
    const reasoned = await run('ask', { question: 'why is the sky blue?', reasoning: true });
    expect(reasoned.followupIds).toHaveLength(1);
    const note = h.fake.message(reasoned.followupIds[0]!)!;
    expect(note.content).toBe('🧠 Reasoning');
    expect(note.attachments.map((a) => a.filename)).toEqual(['reasoning.md']);
    expect(note.attachments[0]!.bytes.length).toBeGreaterThan(0);
  });

  it('/narrate takes start or stop, and start a channel picked from the list', async () => {
    const bob = h.fake.users.bob.id;
    const stop = await run('narrate', {}, bob, 'stop');
    expect(original(stop).content).toBe('Narration is not running.');
    const secret = h.fake.addChannel({
      name: 'secret',
      permissionOverwrites: [{ id: h.fake.botUser.id, type: 1, allow: '0', deny: Permission.ViewChannel.toString() }],
    });
    h.fake.setVoiceState({ userId: bob, channelId: h.fake.voiceChannel.id });
    const guild = h.bot.client.guilds.cache.get(h.fake.guild.id)!;
    await h.fake.waitFor(() => guild.voiceStates.cache.get(bob)?.channelId === h.fake.voiceChannel.id && guild.channels.cache.has(secret.id));
    const start = await run('narrate', { channel: secret.id }, bob, 'start');
    expect(original(start).content).toBe("⚠️ I can't see #secret. A server admin can give me **View Channel** there.");
    h.fake.setVoiceState({ userId: bob, channelId: null });
  });

  it('/reset forgets the channel conversation and /usage reports what was used', async () => {
    const reset = await run('reset');
    expect(original(reset)).toMatchObject({ content: 'Done — I have forgotten this conversation.', ephemeral: true });
    await run('ask', { question: 'remember me' });
    const recall = await run('ask', { question: 'recall' });
    expect(original(recall).content).toBe('You first said: [Alice]: remember me');
    await run('reset');
    const afresh = await run('ask', { question: 'recall' });
    expect(original(afresh).content).toBe('You first said: [Alice]: recall');
    const usage = await run('usage');
    expect(original(usage).content).toMatch(/^\*\*You today:\*\* \d+ replies, [\d,]+ tokens of 200,000/);
    expect(original(usage).content).toContain('**This server today:**');
  });
});

describe('discord: uploads over the limit', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ fake: { uploadLimitBytes: 64 * 1024 } });
    await registerCommands(h.config);
  });

  afterAll(async () => {
    await h.close();
  });

  it('says the file is too large for this channel instead of attempting the upload', async () => {
    const before = h.finished;
    const record = h.fake.invokeCommand({
      name: 'say',
      options: { text: 'A sentence long enough to make a WAV file well over sixty-four kilobytes.', format: 'wav' },
    });
    await h.repliesFinished(before + 1);
    const answer = h.fake.message(record.originalMessageId!)!;
    expect(answer.content).toMatch(
      /^The speech came out at \d+\.\d MB, over this channel's upload limit of 0\.1 MB\. Try a shorter text or the voice-message format/,
    );
    expect(answer.attachments).toHaveLength(0);
    expect(h.fake.requests.filter((r) => r.status === 413 || r.files.length > 0)).toHaveLength(0);
  });
});
