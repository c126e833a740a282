import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_VOICE_ACTIVITY, VoiceActivity, type VoiceActivityEvent } from '../../src/voice/talk/voice-activity.ts';
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

let activity: VoiceActivity | undefined;
afterEach(() => activity?.close());

async function detector() {
  const events: VoiceActivityEvent[] = [];
  activity = await VoiceActivity.create((event) => events.push(event));
  return { activity, events };
}

/** Feeds frames 20 ms apart starting at `t0`, as the voice link would hand them over. */
function feed(voice: VoiceActivity, userId: string, pcm: Int16Array, t0: number): number {
  const frames = pcm.length / FRAME;
  for (let f = 0; f < frames; f++) voice.hear({ userId, pcm: pcm.subarray(f * FRAME, (f + 1) * FRAME), at: t0 + f * FRAME_MS });
  return t0 + frames * FRAME_MS;
}

describe('VoiceActivity', () => {
  it('reports a question: barge-in soon after the first word, a turn, and its end one hangover after the last voiced frame', async () => {
    const { activity, events } = await detector();
    const question = stream(fixture('capital-of-france-a'), 600, 1000, 1);
    const t0 = 10_000;
    const ended = feed(activity, 'ana', question.pcm, t0);
    activity.advance(ended + hangoverMs);

    expect(events.map((e) => e.type)).toEqual(['barge-in', 'turn', 'end']);
    const [bargeIn, turn, end] = events;
    const first = t0 + question.firstVoice!;
    const last = t0 + question.lastVoice!;
    expect(bargeIn!.startedAt).toBeGreaterThanOrEqual(first - 200);
    expect(bargeIn!.startedAt).toBeLessThanOrEqual(first + 60);
    expect(bargeIn!.at - first).toBeLessThanOrEqual(200);
    expect(turn!.at).toBeGreaterThan(bargeIn!.at);
    expect(turn!.startedAt).toBe(bargeIn!.startedAt);
    expect(end).toMatchObject({ type: 'end', userId: 'ana', turn: true, startedAt: bargeIn!.startedAt });
    if (end?.type !== 'end') return;
    expect(Math.abs(end.lastSpeechAt - last)).toBeLessThanOrEqual(60);
    expect(end.at).toBe(end.lastSpeechAt + hangoverMs);
  });

  it('ends speech when frames stop coming: the gap is silence, ended at the deadline the caller is given', async () => {
    const { activity, events } = await detector();
    const question = fixture('time-in-tokyo-b');
    const stopped = feed(activity, 'ana', question, 0);
    expect(activity.speaking('ana')).toBe(true);
    expect(activity.speaking()).toBe(true);
    const deadline = activity.deadline!;
    expect(deadline).toBeGreaterThan(stopped - FRAME_MS);
    expect(deadline).toBeLessThanOrEqual(stopped - FRAME_MS + hangoverMs);

    activity.advance(deadline - 1);
    // A frame of the wrong size is no speech: it does not put the end off.
    activity.hear({ userId: 'ana', pcm: question.subarray(FRAME * 20, FRAME * 20 + 17), at: deadline - 1 });
    expect(activity.deadline).toBe(deadline);
    expect(events.map((e) => e.type)).toEqual(['barge-in', 'turn']);
    activity.advance(deadline + 5_000);
    expect(events.at(-1)).toMatchObject({ type: 'end', turn: true, at: deadline });
    expect(activity.speaking()).toBe(false);
    expect(activity.deadline).toBeUndefined();

    // Speaking again after the gap is a new turn, even when the next frame is what ends the old one.
    events.length = 0;
    feed(activity, 'ana', question, deadline + 1_000);
    expect(events.map((e) => e.type)).toEqual(['barge-in', 'turn']);
  });

  it('keeps one turn across the short pauses inside a sentence', async () => {
    const { activity, events } = await detector();
    const joke = stream(fixture('tell-me-a-joke-b'), 400, 800, 2);
    activity.advance(feed(activity, 'bo', joke.pcm, 0) + hangoverMs);
    expect(events.filter((e) => e.type === 'turn')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'end')).toHaveLength(1);
  });

  it.each<[TalkFixture, boolean]>([
    ['cough', false],
    ['click', false],
    ['mm-hm-a', true],
  ])('does not take %s for a turn (may it pause Herald: %s)', async (name, mayBargeIn) => {
    const { activity, events } = await detector();
    const sound = stream(fixture(name), 400, 800, 3);
    activity.advance(feed(activity, 'ana', sound.pcm, 0) + hangoverMs);
    expect(events.filter((e) => e.type === 'turn')).toEqual([]);
    if (!mayBargeIn) expect(events).toEqual([]);
    // Whatever paused Herald ends as "not a turn", so Herald resumes.
    for (const end of events.filter((e) => e.type === 'end')) expect(end).toMatchObject({ turn: false });
    expect(events.filter((e) => e.type === 'barge-in')).toHaveLength(events.filter((e) => e.type === 'end').length);
  });

  it('follows two people talking over each other, each on their own', async () => {
    const { activity, events } = await detector();
    const ana = stream(fixture('capital-of-france-a'), 200, 600, 4);
    const bo = stream(fixture('time-in-tokyo-b'), 200, 600, 5);
    // Bo starts 700 ms after Ana, while she is still talking; their frames arrive interleaved.
    const boDelay = 700;
    const end = Math.max(ana.frames * FRAME_MS, boDelay + bo.frames * FRAME_MS);
    for (let t = 0; t < end; t += FRAME_MS) {
      const a = t / FRAME_MS;
      if (a < ana.frames) activity.hear({ userId: 'ana', pcm: ana.pcm.subarray(a * FRAME, (a + 1) * FRAME), at: t });
      const b = (t - boDelay) / FRAME_MS;
      if (b >= 0 && b < bo.frames) activity.hear({ userId: 'bo', pcm: bo.pcm.subarray(b * FRAME, (b + 1) * FRAME), at: t });
    }
    activity.advance(end + hangoverMs);

    for (const [userId, heard, delay] of [
      ['ana', ana, 0],
      ['bo', bo, boDelay],
    ] as const) {
      const own = events.filter((e) => e.userId === userId);
      expect(own.map((e) => e.type)).toEqual(['barge-in', 'turn', 'end']);
      const finish = own[2]!;
      if (finish.type !== 'end') continue;
      expect(Math.abs(finish.startedAt - (delay + heard.firstVoice!))).toBeLessThanOrEqual(200);
      expect(Math.abs(finish.lastSpeechAt - (delay + heard.lastVoice!))).toBeLessThanOrEqual(60);
    }
    // Bo's turn started while Ana's was going on.
    const anaEnd = events.find((e) => e.userId === 'ana' && e.type === 'end')!;
    const boTurn = events.find((e) => e.userId === 'bo' && e.type === 'turn')!;
    expect(boTurn.at).toBeLessThan(anaEnd.at);
  });

  it('forgets the speaker heard least recently past its limit, and a forgotten speaker starts afresh', async () => {
    const events: VoiceActivityEvent[] = [];
    activity = await VoiceActivity.create((event) => events.push(event), { maxSpeakers: 2 });
    const question = fixture('time-in-tokyo-b');
    // Ana is forgotten mid-sentence when two others arrive: her speech is dropped without an end.
    const half = question.subarray(0, Math.floor(question.length / FRAME / 2) * FRAME);
    const t = feed(activity, 'ana', half, 0);
    expect(activity.speaking('ana')).toBe(true);
    feed(activity, 'bo', fixture('cough').subarray(0, FRAME), t);
    feed(activity, 'cy', fixture('cough').subarray(0, FRAME), t + FRAME_MS);
    expect(activity.speaking('ana')).toBe(false);
    activity.advance(t + 10_000);
    expect(events.filter((e) => e.userId === 'ana').map((e) => e.type)).not.toContain('end');
    expect(activity.deadline).toBeUndefined();
  });
});
