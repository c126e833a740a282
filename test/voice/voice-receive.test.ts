import { once } from 'node:events';
import type { Client } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscordVoiceLink } from '../../adapters/discord/voice/discord-voice-link.ts';
import { DiscordVoicePlatform } from '../../adapters/discord/voice/discord-voice-platform.ts';
import type { HeardAudio } from '../../src/voice/voice-link.ts';
import { talkFixture, type FakeVoiceServer, type SpokenAudio, type TalkFixture } from '../fakes/discord-voice/index.ts';
import { startFakeDiscord, type FakeDiscord, type UserRecord } from '../fakes/discord/index.ts';
import { readyClient } from '../fakes/discord/test-client.ts';
import { startBotVoiceServer } from './voice-bot-world.ts';

const FRAME = 960;

let fake: FakeDiscord;
let client: Client;
let voice: FakeVoiceServer;
let link: DiscordVoiceLink;
let jukebox: UserRecord;
const logs: { level: number; msg: string }[] = [];
/** The warnings logged since `from` (an earlier length of `logs`). */
const warningsSince = (from: number) => logs.slice(from).filter((line) => line.level === 40);

beforeAll(async () => {
  fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  jukebox = fake.addUser({ username: 'jukebox', bot: true });
  fake.addMember({ userId: jukebox.id });
  const { alice, bob } = fake.users;
  for (const user of [alice, bob, jukebox]) fake.setVoiceState({ userId: user.id, channelId: fake.voiceChannel.id });
  client = await readyClient(fake);
  voice = await startBotVoiceServer(fake, [alice.id, bob.id, jukebox.id]);
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  link = await new DiscordVoicePlatform(client, logger, { recoverTimeoutMs: 500, rejoinDelayMs: 50 }).join(fake.guild.id, fake.voiceChannel.id);
});

afterAll(async () => {
  link?.leave();
  await client?.destroy();
  await voice?.close();
  await fake?.close();
});

/** Energy of each 20 ms frame, in dB, floored at about -50 dBFS so that near-silence does not dominate. */
const envelope = (frames: Int16Array[]): number[] =>
  frames.map((frame) => 10 * Math.log10(frame.reduce((sum, sample) => sum + sample * sample, 0) / frame.length + 10_000));

/** Pearson correlation over the length both have. */
function correlation(x: number[], y: number[]): number {
  const [a, b] = [x.slice(0, y.length), y.slice(0, x.length)];
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [ma, mb] = [mean(a), mean(b)];
  let [ab, aa, bb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

/** The fixture's frames that the user's client sent, in the order sent. */
const sentFrames = (name: TalkFixture, spoken: SpokenAudio): Int16Array[] =>
  spoken.sampleOffsets.map((offset) => {
    const frame = new Int16Array(FRAME);
    frame.set(talkFixture(name).subarray(offset, offset + FRAME));
    return frame;
  });

/** Resolves when the bot's receiver stops getting packets from the user (100 ms after the last one). */
const receiverQuiet = (userId: string) =>
  new Promise<void>((resolve) => {
    const speaking = link.connection!.receiver.speaking;
    const onEnd = (id: string) => {
      if (id !== userId) return;
      speaking.off('end', onEnd);
      resolve();
    };
    speaking.on('end', onEnd);
  });

describe('Discord voice link hears the channel: real discord.js and @discordjs/voice, fake Discord and voice server', () => {
  it("delivers each person's decoded frames under their id while listening, skips bots, and is deaf otherwise", async () => {
    const { alice, bob } = fake.users;
    const logged = logs.length;
    expect(fake.voiceRequests.at(-1)).toMatchObject({ channelId: fake.voiceChannel.id, selfDeaf: true });
    const heard: HeardAudio[] = [];
    const stop = link.listen((audio) => heard.push(audio));
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.selfDeaf === false, { description: 'the bot undeafened' });
    expect(fake.voiceRequests.at(-1)?.channelId).toBe(fake.voiceChannel.id);

    // Bob and the jukebox bot are not in the client's cache: they are looked up while their first frames wait.
    client.users.cache.delete(bob.id);
    client.users.cache.delete(jukebox.id);
    const quiet = Promise.all([receiverQuiet(alice.id), receiverQuiet(bob.id), receiverQuiet(jukebox.id)]);
    const [saidAlice, saidBob, saidJukebox] = await Promise.all([
      voice.speak(alice.id, talkFixture('capital-of-france-a')),
      voice.speak(bob.id, talkFixture('time-in-tokyo-b'), { input: 'open-mic' }),
      voice.speak(jukebox.id, talkFixture('tell-me-a-joke-b'), { input: 'open-mic' }),
    ]);
    await quiet;
    expect(saidJukebox.forwarded).toBeGreaterThan(0);

    const of = (userId: string) => heard.filter((audio) => audio.userId === userId);
    expect(new Set(heard.map((audio) => audio.userId))).toEqual(new Set([alice.id, bob.id]));
    expect(heard.every((audio) => audio.pcm.length === FRAME)).toBe(true);
    expect(of(alice.id)).toHaveLength(saidAlice.opus.length);
    expect(of(bob.id)).toHaveLength(saidBob.opus.length);
    const aliceHeard = envelope(of(alice.id).map((audio) => audio.pcm));
    const bobHeard = envelope(of(bob.id).map((audio) => audio.pcm));
    // Each person's frames carry their own speech: the loudness contour follows their fixture (as far as the
    // Opus round trip allows), far better than the other person's.
    const aliceSaid = envelope(sentFrames('capital-of-france-a', saidAlice));
    const bobSaid = envelope(sentFrames('time-in-tokyo-b', saidBob));
    expect(correlation(aliceHeard, aliceSaid)).toBeGreaterThan(0.8);
    expect(correlation(bobHeard, bobSaid)).toBeGreaterThan(0.8);
    expect(correlation(aliceHeard, bobSaid)).toBeLessThan(correlation(aliceHeard, aliceSaid) - 0.3);
    expect(correlation(bobHeard, aliceSaid)).toBeLessThan(correlation(bobHeard, bobSaid) - 0.3);
    // They spoke at the same time, and frames came as they were spoken, not at the end.
    const times = (userId: string) => of(userId).map((audio) => audio.at);
    expect(Math.min(...times(alice.id))).toBeLessThan(Math.max(...times(bob.id)));
    expect(Math.min(...times(bob.id))).toBeLessThan(Math.max(...times(alice.id)));
    expect(Math.max(...times(alice.id)) - Math.min(...times(alice.id))).toBeGreaterThan(1000);

    stop();
    await fake.waitFor(() => fake.voiceRequests.at(-1)?.selfDeaf === true, { description: 'the bot deafened again' });
    const before = heard.length;
    const arrived = once(link.connection!.receiver.speaking, 'start');
    const afterQuiet = receiverQuiet(alice.id);
    await voice.speak(alice.id, talkFixture('mm-hm-a'));
    await arrived; // Discord still sends the audio to a self-deafened bot
    await afterQuiet;
    expect(heard.length).toBe(before);
    expect(logs.slice(logged).filter((line) => line.level >= 40)).toEqual([]);
  });

  it('goes on hearing, undeafened, through a lost voice connection joined afresh', async () => {
    const { alice } = fake.users;
    const heard: HeardAudio[] = [];
    const stop = link.listen((audio) => heard.push(audio));
    const [identifies, executes, requests] = [
      voice.payloads.filter((payload) => payload.op === 0).length,
      voice.daveEvents.filter((event) => event.type === 'execute').length,
      fake.voiceRequests.length,
    ];
    voice.dropConnection(4006); // not resumable: the link joins afresh
    await fake.waitFor(() => voice.payloads.filter((payload) => payload.op === 0).length > identifies, { timeoutMs: 5_000 });
    await fake.waitFor(() => voice.daveEvents.filter((event) => event.type === 'execute').length > executes, { timeoutMs: 5_000 });
    const joins = fake.voiceRequests.slice(requests).filter((request) => request.channelId !== null);
    expect(joins.length).toBeGreaterThan(0);
    expect(joins.every((request) => !request.selfDeaf)).toBe(true);

    const quiet = receiverQuiet(alice.id);
    const said = await voice.speak(alice.id, talkFixture('mm-hm-a'));
    await quiet;
    expect(heard.map((audio) => audio.userId)).toEqual(said.opus.map(() => alice.id));
    stop();
  });

  it('drops what a speaker sends beyond real time, with one warning', async () => {
    const { bob } = fake.users;
    const logged = logs.length;
    const heard: HeardAudio[] = [];
    const stop = link.listen((audio) => heard.push(audio));
    const quiet = receiverQuiet(bob.id);
    const speech = talkFixture('long-interruption-a');
    const flood = new Int16Array(speech.length * 3);
    for (let i = 0; i < 3; i++) flood.set(speech, i * speech.length);
    const said = await voice.speak(bob.id, flood, { input: 'open-mic', frameIntervalMs: 0 });
    await quiet;
    stop();
    // Two seconds' worth get through at once (network jitter), then fifty frames a second of the time it took.
    const seconds = (heard.at(-1)!.at - heard[0]!.at) / 1000;
    expect(heard.length).toBeGreaterThanOrEqual(100);
    expect(heard.length).toBeLessThanOrEqual(100 + Math.ceil(50 * seconds) + 2);
    expect(heard.length).toBeLessThan(said.opus.length);
    expect(warningsSince(logged).map((line) => line.msg)).toEqual(['voice: a speaker sends faster than real time; dropping the excess']);
  });

  it("warns once, and goes on hearing, when a speaker's packets arrive but none can be decrypted", async () => {
    const { alice } = fake.users;
    const logged = logs.length;
    const heard: HeardAudio[] = [];
    const stop = link.listen((audio) => heard.push(audio));
    for (let attempt = 0; attempt < 2; attempt++) {
      const quiet = receiverQuiet(alice.id);
      await voice.speak(alice.id, talkFixture('mm-hm-a'), { undecryptable: true });
      await quiet;
    }
    expect(heard).toEqual([]);
    const warnings = warningsSince(logged);
    expect(warnings.map((line) => line.msg)).toEqual(['voice: packets arrive from a speaker but the receiver yields no audio (decryption failing?)']);
    expect(warnings[0]).toMatchObject({ guildId: fake.guild.id, userId: alice.id });

    const quiet = receiverQuiet(alice.id);
    const said = await voice.speak(alice.id, talkFixture('mm-hm-a'));
    await quiet;
    expect(heard).toHaveLength(said.opus.length);
    stop();
  });
});
