import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_VOICE_ACTIVITY, loadVoiceActivity, type VoiceActivity, type VoiceActivityEvent } from '../../src/voice/talk/voice-activity.ts';
import { type TalkFixture, talkFixture } from '../fakes/discord-voice/talk-fixtures.ts';
import { seededRandom } from '../media/speech/signals.ts';

const FRAME = 960;
const FRAME_MS = 20;
const { hangoverMs } = DEFAULT_VOICE_ACTIVITY;

/** The fixture in whole 20 ms frames. */
function fixture(name: TalkFixture): Int16Array {
  const pcm = talkFixture(name);
  return pcm.subarray(0, pcm.length - (pcm.length % FRAME));
}

function frameDb(pcm: Int16Array, from: number): number {
  let sum = 0;
  for (let i = from; i < from + FRAME && i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return sum === 0 ? -100 : 10 * Math.log10(sum / FRAME / 32768 ** 2);
}

/** The sound `leadMs` into a stream of quiet room noise (30 dB below it), `tailMs` of noise after. */
function stream(sound: Int16Array, leadMs: number, tailMs: number, seed: number) {
  const lead = (leadMs / FRAME_MS) * FRAME;
  const frames = Math.ceil((lead + sound.length) / FRAME) + tailMs / FRAME_MS;
  const clean = new Int16Array(frames * FRAME);
  clean.set(sound, lead);
  // The fixture's voice frames: the reference the detector is held to.
  const voiced: number[] = [];
  for (let f = 0; f < frames; f++) if (frameDb(clean, f * FRAME) > -50) voiced.push(f * FRAME_MS);
  const noise = fixture('room-noise');
  let soundPower = 0;
  for (const v of sound) soundPower += v * v;
  let noisePower = 0;
  for (const v of noise) noisePower += v * v;
  const gain = Math.sqrt(soundPower / sound.length / (noisePower / noise.length)) / 10 ** (30 / 20);
  const offset = Math.floor(seededRandom(seed)() * noise.length);
  // Looped forwards then backwards: a plain loop's seam would click.
  const at = (i: number) => {
    const k = (i + offset) % (2 * noise.length);
    return noise[k < noise.length ? k : 2 * noise.length - 1 - k]!;
  };
  const pcm = clean.map((v, i) => Math.max(-32768, Math.min(32767, Math.round(v + gain * at(i)))));
  return { pcm, frames, firstVoice: voiced[0], lastVoice: voiced.at(-1) };
}

const made: VoiceActivity[] = [];
afterEach(() => {
  for (const activity of made.splice(0)) activity.free();
});

async function detector(): Promise<VoiceActivity> {
  const activity = (await loadVoiceActivity())();
  made.push(activity);
  return activity;
}

/** Feeds frames 20 ms apart from `t0`, as the voice link hands them over; the events, and when the frames stopped. */
function feed(activity: VoiceActivity, pcm: Int16Array, t0: number, events: VoiceActivityEvent[] = []) {
  const frames = pcm.length / FRAME;
  for (let f = 0; f < frames; f++) {
    const event = activity.frame(pcm.subarray(f * FRAME, (f + 1) * FRAME), t0 + f * FRAME_MS);
    if (event) events.push(event);
  }
  return { events, stopped: t0 + frames * FRAME_MS };
}

describe('VoiceActivity', () => {
  it('reports a question: speech soon after the first word, a turn, and its end one hangover after the last voiced frame', async () => {
    const activity = await detector();
    const question = stream(fixture('capital-of-france-a'), 600, 1000, 1);
    const t0 = 10_000;
    // The room's noise goes on after the question: the end comes from the frames themselves.
    const { events } = feed(activity, question.pcm, t0);
    expect(events.map((e) => e.type)).toEqual(['speech', 'turn', 'end']);
    const [speech, turn, end] = events;
    const first = t0 + question.firstVoice!;
    const last = t0 + question.lastVoice!;
    expect(speech!.startedAt).toBeGreaterThanOrEqual(first - 200);
    expect(speech!.startedAt).toBeLessThanOrEqual(first + 60);
    expect(speech!.at - first).toBeLessThanOrEqual(200);
    expect(turn!.at).toBeGreaterThan(speech!.at);
    expect(turn!.startedAt).toBe(speech!.startedAt);
    expect(end).toMatchObject({ type: 'end', turn: true, startedAt: speech!.startedAt });
    if (end?.type !== 'end') return;
    expect(Math.abs(end.lastSpeechAt - last)).toBeLessThanOrEqual(60);
    expect(end.at).toBe(end.lastSpeechAt + hangoverMs);
  });

  it('ends speech when frames stop coming: the gap is silence, ended a hangover after the last speech however late that is checked', async () => {
    const question = fixture('time-in-tokyo-b');
    // A twin detector fed the same frames tells when the end is due.
    const twin = await detector();
    feed(twin, question, 0);
    const deadline = twin.silence(Number.MAX_SAFE_INTEGER)!.at;

    const activity = await detector();
    const { events, stopped } = feed(activity, question, 0);
    expect(events.map((e) => e.type)).toEqual(['speech', 'turn']);
    expect(deadline).toBeGreaterThan(stopped - FRAME_MS);
    expect(deadline).toBeLessThanOrEqual(stopped - FRAME_MS + hangoverMs);
    expect(activity.silence(deadline - 1)).toBeUndefined();
    // A frame of the wrong size is no speech: it does not put the end off.
    expect(activity.frame(question.subarray(FRAME * 20, FRAME * 20 + 17), deadline - 1)).toBeUndefined();
    expect(activity.silence(deadline + 5_000)).toMatchObject({ type: 'end', turn: true, at: deadline });
    expect(activity.silence(deadline + 6_000)).toBeUndefined();

    // Speaking again after the gap is new speech, even when its first frame is what ends the old one.
    const again = fixture('capital-of-france-a');
    const before = feed(activity, question, 0);
    const resumed = feed(activity, again, before.stopped + 1_000);
    expect(resumed.events.map((e) => e.type)).toEqual(['end', 'speech', 'turn']);
  });

  it('keeps one turn across the short pauses inside a sentence', async () => {
    const activity = await detector();
    const joke = stream(fixture('tell-me-a-joke-b'), 400, 800, 2);
    const { events, stopped } = feed(activity, joke.pcm, 0);
    expect(activity.silence(stopped + hangoverMs)).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(['speech', 'turn', 'end']);
  });

  it.each<[TalkFixture, boolean]>([
    ['cough', false],
    ['click', false],
    ['mm-hm-a', true],
  ])('does not take %s for a turn (may it pause Herald: %s)', async (name, mayPause) => {
    const activity = await detector();
    const sound = stream(fixture(name), 400, 800, 3);
    const { events, stopped } = feed(activity, sound.pcm, 0);
    const end = activity.silence(stopped + hangoverMs);
    if (end) events.push(end);
    expect(events.filter((e) => e.type === 'turn')).toEqual([]);
    if (!mayPause) expect(events).toEqual([]);
    // Whatever paused Herald ends as "not a turn", so Herald resumes.
    expect(events.filter((e) => e.type === 'end')).toEqual(
      events.filter((e) => e.type === 'speech').map(() => expect.objectContaining({ turn: false })),
    );
  });

  it('takes three seconds of loud room noise (a fan next to the microphone) for nothing', async () => {
    const activity = await detector();
    const noise = fixture('room-noise');
    const loud = new Int16Array(150 * FRAME);
    // Looped forwards then backwards, at about -20 dBFS: as loud as speech.
    for (let i = 0; i < loud.length; i++) {
      const k = i % (2 * noise.length);
      loud[i] = Math.max(-32768, Math.min(32767, 25 * noise[k < noise.length ? k : 2 * noise.length - 1 - k]!));
    }
    const { events, stopped } = feed(activity, loud, 0);
    expect(activity.silence(stopped + hangoverMs)).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('follows two people talking over each other, each with their own detector', async () => {
    const detectors = { ana: await detector(), bo: await detector() };
    const ana = stream(fixture('capital-of-france-a'), 200, 600, 4);
    const bo = stream(fixture('time-in-tokyo-b'), 200, 600, 5);
    const events: (VoiceActivityEvent & { userId: string })[] = [];
    const heard = (userId: 'ana' | 'bo', event: VoiceActivityEvent | undefined) => event && events.push({ ...event, userId });
    // Bo starts 700 ms after Ana, while she is still talking; their frames arrive interleaved.
    const boDelay = 700;
    const end = Math.max(ana.frames * FRAME_MS, boDelay + bo.frames * FRAME_MS);
    for (let t = 0; t < end; t += FRAME_MS) {
      const a = t / FRAME_MS;
      if (a < ana.frames) heard('ana', detectors.ana.frame(ana.pcm.subarray(a * FRAME, (a + 1) * FRAME), t));
      const b = (t - boDelay) / FRAME_MS;
      if (b >= 0 && b < bo.frames) heard('bo', detectors.bo.frame(bo.pcm.subarray(b * FRAME, (b + 1) * FRAME), t));
    }
    heard('ana', detectors.ana.silence(end + hangoverMs));
    heard('bo', detectors.bo.silence(end + hangoverMs));

    for (const [userId, voice, delay] of [
      ['ana', ana, 0],
      ['bo', bo, boDelay],
    ] as const) {
      const own = events.filter((e) => e.userId === userId);
      expect(own.map((e) => e.type)).toEqual(['speech', 'turn', 'end']);
      const finish = own[2]!;
      if (finish.type !== 'end') continue;
      expect(Math.abs(finish.startedAt - (delay + voice.firstVoice!))).toBeLessThanOrEqual(200);
      expect(Math.abs(finish.lastSpeechAt - (delay + voice.lastVoice!))).toBeLessThanOrEqual(60);
    }
    // Bo's turn started while Ana's was going on.
    const anaEnd = events.find((e) => e.userId === 'ana' && e.type === 'end')!;
    const boTurn = events.find((e) => e.userId === 'bo' && e.type === 'turn')!;
    expect(boTurn.at).toBeLessThan(anaEnd.at);
  });
});
