import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackShortcuts as actionShortcuts } from '../../adapters/slack/shortcut-listeners.ts';
import { remindShortcut } from '../../adapters/slack/remind-shortcut.ts';
import { summaryShortcuts } from '../../adapters/slack/summary-listeners.ts';
import type { FakeSlack, Json } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

const slackShortcuts = [...actionShortcuts, ...summaryShortcuts, remindShortcut];
const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));

interface Manifest {
  features: { shortcuts?: Array<{ name: string; type: string; callback_id: string; description: string }> };
  settings: { interactivity: { is_enabled: boolean; request_url?: string } };
}

describe('Slack message shortcuts', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;
  let bob: string;

  beforeAll(async () => {
    ({ fake, emu, herald } = await startSlackWorld({ emulator: { transcribe: () => 'see you at noon' } }));
    Object.assign(fake.workspace.users.get(fake.userId)!, { locale: 'fr-FR' });
    bob = fake.addUser({ name: 'bob', real_name: 'Bob Example' }).id;
  });

  afterAll(() => stopSlackWorld({ fake, emu, herald }));

  /** Bob posts in the channel (no event: Herald is not addressed); returns the message's ts. */
  const bobPosts = (text: string, thread_ts?: string) =>
    String(fake.events.message({ text, user: bob, channel: fake.channelId, ...(thread_ts && { thread_ts }) }).ts);
  const lastChat = () => JSON.stringify(emu.requests.filter((r) => r.endpoint === 'chat').at(-1)?.body);

  /** Alice picks a shortcut on a message; resolves once Herald has finished with it. */
  async function pick(callbackId: string, messageTs: string): Promise<void> {
    const delivery = await fake.sendInteractive(fake.messageShortcutPayload({ callbackId, messageTs }));
    expect(delivery.status).toBe(200);
    expect(delivery.ackMs).toBeLessThan(3000);
    await herald.settled();
  }

  it('the manifest declares each shortcut by its callback_id, with interactivity on', () => {
    const manifest = parse(readFileSync(new URL('../../adapters/slack/manifest.yml', import.meta.url), 'utf8')) as Manifest;
    const shortcuts = manifest.features.shortcuts ?? [];
    expect(shortcuts.map((s) => s.callback_id).sort()).toEqual(slackShortcuts.map((a) => a.id).sort());
    expect(shortcuts.map((s) => s.callback_id)).toEqual(expect.arrayContaining(['translate', 'read_aloud']));
    for (const s of shortcuts) {
      const action = slackShortcuts.find((a) => a.id === s.callback_id)!;
      expect(s).toEqual({ type: 'message', callback_id: action.id, name: action.name, description: action.description });
      expect(s.name.length).toBeLessThanOrEqual(24);
      expect(s.description.length).toBeLessThanOrEqual(150);
    }
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
  });

  it('Translate answers the presser alone, in their Slack language, in the message’s thread', async () => {
    const root = bobPosts('kickoff');
    const ts = bobPosts(`The meeting moved to noon, <@${fake.userId}>.`, root);
    await pick('translate', ts);
    expect(fake.calls('users.info').some((c) => c.args.user === fake.userId && String(c.args.include_locale) === 'true')).toBe(true);
    expect(lastChat()).toContain('Translate that message into French');
    expect(lastChat()).toContain('(replying to bob: \\"The meeting moved to noon, @alice.\\")');
    const [answer] = fake.ephemeralMessages(fake.userId);
    expect(answer).toMatchObject({ channel: fake.channelId, user: fake.userId, thread_ts: root });
    expect(String(answer!.text)).toContain('into French');
    expect(fake.botMessages()).toHaveLength(0);
  });

  it('Read aloud sends a WAV to the presser’s DM and says so where they picked it', async () => {
    const ts = bobPosts('The build is green again.');
    const before = fake.ephemeralMessages().length;
    await pick('read_aloud', ts);
    const shared = fake.botMessages(fake.dmChannelId).find((m) => m.fileIds.length > 0)!;
    const file = fake.workspace.files.get(shared.fileIds[0]!)!;
    expect(file.file.name).toBe('speech.wav');
    expect(file.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    const notes = fake.ephemeralMessages().slice(before);
    expect(notes).toEqual([expect.objectContaining({ channel: fake.channelId, text: expect.stringContaining('direct messages') })]);
    expect(fake.botMessages(fake.channelId)).toHaveLength(0);
  });

  it('Transcribe reads a voice clip; a message without text, or too long, is refused in one line', async () => {
    const clip = fake.uploadAudioClip({ bytes: fixture('audio/voice-note.ogg'), user: bob });
    const shared = fake.events.fileShare({ files: [clip], channel: fake.channelId, user: bob });
    const before = fake.ephemeralMessages().length;
    await pick('transcribe', String(shared.ts));
    await pick('read_aloud', String(shared.ts));
    await pick('read_aloud', bobPosts('word '.repeat(500)));
    const texts = fake
      .ephemeralMessages()
      .slice(before)
      .map((m: Json) => String(m.text));
    expect(texts[0]).toContain('see you at noon');
    expect(texts.slice(1)).toEqual(['That message has no text to read aloud.', 'That message is 2499 characters long; I read aloud at most 2000.']);
  });
  it('in a conversation Herald is not in, the answer comes through the response_url', async () => {
    const elsewhere = fake.addChannel({ name: 'elsewhere', is_member: false }).id;
    const ts = String(fake.events.message({ text: 'Hola a todos', user: bob, channel: elsewhere }).ts);
    const delivery = await fake.sendInteractive(fake.messageShortcutPayload({ callbackId: 'translate', messageTs: ts, channel: elsewhere }));
    expect(delivery.status).toBe(200);
    await herald.settled();
    expect(fake.calls('chat.postEphemeral').at(-1)?.response).toMatchObject({ ok: false, error: 'not_in_channel' });
    expect(fake.responseUrlPosts.at(-1)).toMatchObject({ channel: elsewhere, user: fake.userId, body: { response_type: 'ephemeral' } });
    expect(String(fake.responseUrlPosts.at(-1)!.body.text)).toContain('into French');
  });
});
