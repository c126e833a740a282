import { afterEach, describe, expect, it } from 'vitest';
import { EndBehaviorType, type VoiceConnection, type VoiceReceiver } from '@discordjs/voice';
import { OPUS_SILENCE_FRAME, snowflake, startFakeVoiceServer, talkFixture, type FakeVoiceServer, type TransportMode } from './index.ts';
import { eventually, joinFakeVoice, leaveFakeVoice, nextTransition, untilReady } from './voice-client.ts';

afterEach(leaveFakeVoice);

/** Everything the real receiver hands out for one user, split into Opus frames and silence frames. */
function record(receiver: VoiceReceiver, userId: string): { frames: Buffer[]; silence: number } {
  const heard = { frames: [] as Buffer[], silence: 0 };
  receiver.subscribe(userId, { end: { behavior: EndBehaviorType.Manual } }).on('data', (packet: Buffer) => {
    if (packet.equals(OPUS_SILENCE_FRAME)) heard.silence++;
    else heard.frames.push(packet);
  });
  return heard;
}

async function joinWith(users: string[], mode?: TransportMode): Promise<{ server: FakeVoiceServer; connection: VoiceConnection }> {
  const fake = await startFakeVoiceServer({ users, ...(mode ? { modes: [mode] } : {}) });
  const joined = joinFakeVoice(fake).connection;
  const transitioned = users.length > 0 ? nextTransition(joined) : undefined;
  await untilReady(joined);
  await transitioned;
  await eventually(() => fake.daveEvents.some((event) => event.type === 'key-package'));
  return { server: fake, connection: joined };
}

describe('fake voice server: users speak to the bot, heard through the real @discordjs/voice receiver', () => {
  it('maps SSRCs with opcode 5 and delivers two overlapping speakers, DAVE-decrypted, to a self-deafened bot', async () => {
    const [alice, bob] = [snowflake(), snowflake()];
    const { server, connection } = await joinWith([alice, bob]);
    const { receiver } = connection;
    const heardAlice = record(receiver, alice);
    const heardBob = record(receiver, bob);

    // Alice's long sentence has a pause that her client's voice activity turns into two talkspurts; Bob talks
    // over her with his microphone open.
    const [saidAlice, saidBob] = await Promise.all([
      server.speak(alice, talkFixture('long-interruption-a'), { frameIntervalMs: 4 }),
      server.speak(bob, talkFixture('time-in-tokyo-b'), { frameIntervalMs: 4, input: 'open-mic' }),
    ]);
    await eventually(() => heardAlice.silence === 5 * saidAlice.talkspurts && heardBob.silence === 5);

    expect(saidAlice.talkspurts).toBe(2);
    expect(saidBob.talkspurts).toBe(1);
    expect(saidBob.opus.length).toBe(Math.ceil(talkFixture('time-in-tokyo-b').length / 960));
    expect(heardAlice.frames).toEqual(saidAlice.opus);
    expect(heardBob.frames).toEqual(saidBob.opus);
    expect(saidAlice.forwarded).toBe(saidAlice.opus.length + 10);
    expect(receiver.ssrcMap.get(alice)?.audioSSRC).toBe(server.ssrcOf(alice));
    expect(receiver.ssrcMap.get(bob)?.audioSSRC).toBe(server.ssrcOf(bob));
    // Frames arrived end-to-end encrypted: the bot's DAVE session decrypted each with its sender's key.
    const dave = (
      connection.state as { networking: { state: { dave?: { session?: { getDecryptionStats(userId: string): { successes: number } } } } } }
    ).networking.state.dave?.session;
    expect(dave?.getDecryptionStats(alice).successes).toBe(saidAlice.opus.length);
    expect(dave?.getDecryptionStats(bob).successes).toBe(saidBob.opus.length);

    // Server-deafened, the bot gets nothing; once that is lifted, audio flows again.
    server.serverDeafenBot(true);
    expect(server.voiceStateUpdate().deaf).toBe(true);
    const muted = await server.speak(bob, talkFixture('mm-hm-a'), { frameIntervalMs: 0 });
    expect(muted.forwarded).toBe(0);
    server.serverDeafenBot(false);
    const again = await server.speak(bob, talkFixture('mm-hm-a'), { frameIntervalMs: 0 });
    await eventually(() => heardBob.silence === 10);
    expect(heardBob.frames.slice(saidBob.opus.length)).toEqual(again.opus);
  });

  it('encrypts with XChaCha20-Poly1305 when the session chose it, and a user joining later is heard', async () => {
    const { server, connection } = await joinWith([], 'aead_xchacha20_poly1305_rtpsize');
    const carol = snowflake();
    const transitioned = nextTransition(connection);
    server.connectUser(carol);
    await transitioned;
    const heard = record(connection.receiver, carol);
    const said = await server.speak(carol, talkFixture('cough'), { frameIntervalMs: 0, input: 'open-mic' });
    await eventually(() => heard.silence === 5);
    expect(heard.frames).toEqual(said.opus);
    expect(said.opus.length).toBe(Math.ceil(talkFixture('cough').length / 960));
  });
});
