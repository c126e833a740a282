import type { FrameClassifier, FrameKind } from '../src/voice/talk/frame-classifier.ts';
import { FRAME_SAMPLES_48K } from '../src/media/speech/opus-encoder.ts';
import { DEFAULT_VOICE_ACTIVITY, VoiceActivity, type VoiceActivityEvent } from '../src/voice/talk/voice-activity.ts';
import { type TalkFixture, talkFixture } from '../test/fakes/discord-voice/talk-fixtures.ts';
import { seededRandom } from '../test/media/speech/signals.ts';
import { median, percentile } from './stats.ts';

const FRAME_MS = 20;
const RATE = 48_000;

function rms(samples: Int16Array | Float32Array): number {
  let sum = 0;
  for (const v of samples) sum += v * v;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** A run of music-like notes: three harmonics each, 250 ms a note, as from a user's speakers. */
function tones(seconds: number): Int16Array {
  const notes = [262, 330, 392, 523, 440, 349];
  const out = new Int16Array(Math.round(seconds * RATE));
  const noteLength = RATE / 4;
  for (let i = 0; i < out.length; i++) {
    const f = notes[Math.floor(i / noteLength) % notes.length]!;
    const t = i / RATE;
    const envelope = Math.min(1, ((i % noteLength) / noteLength) * 20) * (1 - ((i % noteLength) / noteLength) * 0.5);
    out[i] = Math.round(
      6000 * envelope * (Math.sin(2 * Math.PI * f * t) + 0.5 * Math.sin(4 * Math.PI * f * t) + 0.25 * Math.sin(6 * Math.PI * f * t)),
    );
  }
  return out;
}

/** One speaker's audio stream: a sound between lead and tail of room noise, and which frames are speech. */
interface Scene {
  name: string;
  /** Whole 20 ms frames. */
  pcm: Int16Array;
  /** Per frame: the clean sound is a voice there (an utterance's or an "mm-hm"'s). */
  truth: boolean[];
  /** Whether the sound is something said to Herald (a turn), as opposed to a cough, a click, a tone… */
  isTurn: boolean;
  /** The room noise under it: `no noise`, `20 dB SNR`… */
  noise: string;
}

const LEAD_MS = 600;
const TAIL_MS = 1200;
/** Frames of the clean fixtures louder than this are speech (the fixtures are trimmed, digital silence between words). */
const TRUTH_DB = -50;

function frameDb(samples: Int16Array, frame: number): number {
  const slice = samples.subarray(frame * FRAME_SAMPLES_48K, (frame + 1) * FRAME_SAMPLES_48K);
  const level = rms(slice) / 32768;
  return level === 0 ? -100 : 20 * Math.log10(level);
}

/** A short recording looped forwards then backwards, so the loop has no seam (a seam clicks). */
function pingPong(samples: Int16Array, i: number): number {
  const at = i % (2 * samples.length);
  return samples[at < samples.length ? at : 2 * samples.length - 1 - at]!;
}

export function noiseName(snrDb: number | undefined): string {
  return snrDb === undefined ? 'no noise' : `${snrDb} dB SNR`;
}

/** `sound` between room noise, the noise `snrDb` below the sound's RMS (no noise when undefined). */
function scene(name: string, sound: Int16Array, isTurn: boolean, snrDb: number | undefined, seed: number, isVoice = isTurn): Scene {
  const lead = (LEAD_MS / FRAME_MS) * FRAME_SAMPLES_48K;
  const frames = Math.ceil((lead + sound.length) / FRAME_SAMPLES_48K) + TAIL_MS / FRAME_MS;
  const clean = new Int16Array(frames * FRAME_SAMPLES_48K);
  clean.set(sound, lead);
  const truth = Array.from({ length: frames }, (_, f) => isVoice && frameDb(clean, f) > TRUTH_DB);
  const pcm = new Int16Array(clean.length);
  const noise = talkFixture('room-noise');
  const gain = snrDb === undefined ? 0 : rms(sound) / rms(noise) / 10 ** (snrDb / 20);
  const offset = Math.floor(seededRandom(seed)() * noise.length);
  for (let i = 0; i < pcm.length; i++) {
    pcm[i] = Math.max(-32768, Math.min(32767, Math.round(clean[i]! + gain * pingPong(noise, i + offset))));
  }
  return { name, pcm, truth, isTurn, noise: noiseName(snrDb) };
}

const UTTERANCES: TalkFixture[] = ['capital-of-france-a', 'time-in-tokyo-b', 'tell-me-a-joke-b', 'long-interruption-a'];
const NOT_TURNS: TalkFixture[] = ['cough', 'click', 'mm-hm-a'];
/** Clean, then room noise at these signal-to-noise ratios. */
export const SNRS_DB = [undefined, 20, 10, 5];

/** Every utterance and every non-turn sound at every noise level, plus tones and noise alone. */
export function scenes(): Scene[] {
  const out: Scene[] = [];
  let seed = 1;
  for (const snr of SNRS_DB) {
    for (const name of UTTERANCES) out.push(scene(name, talkFixture(name), true, snr, seed++));
    for (const name of NOT_TURNS) out.push(scene(name, talkFixture(name), false, snr, seed++, name.startsWith('mm-hm')));
    out.push(scene('tones', tones(2), false, snr, seed++));
  }
  // Loud room noise alone, at a speech-like level.
  out.push(scene('room noise', new Int16Array(RATE), false, undefined, seed++));
  const loud = out.at(-1)!;
  loud.noise = 'loud noise alone';
  const noise = talkFixture('room-noise');
  for (let i = 0; i < loud.pcm.length; i++) loud.pcm[i] = Math.max(-32768, Math.min(32767, 20 * pingPong(noise, i)));
  return out;
}

interface SceneOutcome {
  scene: Scene;
  kinds: FrameKind[];
  events: VoiceActivityEvent[];
}

/** Feeds every scene to a fresh classifier and segmenter, frame after frame as a speaker's stream. */
export function runScenes(all: Scene[], newClassifier: () => FrameClassifier): { outcomes: SceneOutcome[]; cpuMs: number; audioMs: number } {
  const outcomes: SceneOutcome[] = [];
  let cpuMicros = 0;
  let audioMs = 0;
  for (const scene of all) {
    const classifier = newClassifier();
    const kinds: FrameKind[] = [];
    const events: VoiceActivityEvent[] = [];
    // The segmenter asks the classifier; recording what it said does not count towards the CPU.
    const recording: FrameClassifier = {
      classify(frame) {
        const kind = classifier.classify(frame);
        kinds.push(kind);
        return kind;
      },
      clear: () => classifier.clear(),
      free: () => classifier.free(),
    };
    const speaker = new VoiceActivity(recording);
    const frames = scene.pcm.length / FRAME_SAMPLES_48K;
    const started = process.threadCpuUsage();
    for (let f = 0; f < frames; f++) {
      const event = speaker.frame(scene.pcm.subarray(f * FRAME_SAMPLES_48K, (f + 1) * FRAME_SAMPLES_48K), f * FRAME_MS);
      if (event) events.push(event);
    }
    const last = speaker.silence(frames * FRAME_MS + DEFAULT_VOICE_ACTIVITY.hangoverMs);
    const used = process.threadCpuUsage(started);
    if (last) events.push(last);
    cpuMicros += used.user + used.system;
    audioMs += frames * FRAME_MS;
    speaker.free();
    outcomes.push({ scene, kinds, events });
  }
  return { outcomes, cpuMs: cpuMicros / 1000, audioMs };
}

export interface DetectorScore {
  /** Per frame, the classifier's speech (voiced or not) against the clean sound's voice, over every scene. */
  frameAccuracy: number;
  /** Per frame, inside a stretch of speech the segmenter reported (first speech frame to last) against the clean sound's voice. */
  stretchAccuracy: number;
  /** Of the voice frames, the share inside reported stretches; of the others, the share inside them. */
  stretchRecall: number;
  stretchFalse: number;
  /** Turns in the utterances (stretches of voice apart by less than the hangover), and how many were found. */
  turns: number;
  turnsFound: number;
  /** Turns where there was none: from coughs, clicks, mm-hm, tones or noise, or one utterance's turn cut in two. */
  falseTurns: number;
  /** Sounds that are not speech that would have paused Herald. */
  falseBargeIns: number;
  /** A turn's first voice frame → barge-in, and → turn; its last voice frame → end of speech (includes the hangover). */
  bargeInMs: number[];
  turnMs: number[];
  endMs: number[];
  /** How far the reported last speech frame is from the true one. */
  lastSpeechErrorMs: number[];
  /** CPU per minute of one speaker's audio, classifier and segmenter. */
  cpuMsPerMinute: number;
}

/** The turns of a scene's truth: runs of voice frames joined across pauses shorter than the hangover. */
function truthTurns(truth: boolean[]): { first: number; last: number }[] {
  const turns: { first: number; last: number }[] = [];
  truth.forEach((voice, f) => {
    if (!voice) return;
    const at = f * FRAME_MS;
    const open = turns.at(-1);
    if (open && at - open.last < DEFAULT_VOICE_ACTIVITY.hangoverMs) open.last = at;
    else turns.push({ first: at, last: at });
  });
  return turns;
}

export function score(all: Scene[], newClassifier: () => FrameClassifier): DetectorScore {
  const { outcomes, cpuMs, audioMs } = runScenes(all, newClassifier);
  const count = { frames: 0, right: 0, stretchRight: 0, voice: 0, voiceIn: 0, other: 0, otherIn: 0 };
  const result: DetectorScore = {
    frameAccuracy: 0,
    stretchAccuracy: 0,
    stretchRecall: 0,
    stretchFalse: 0,
    turns: 0,
    turnsFound: 0,
    falseTurns: 0,
    falseBargeIns: 0,
    bargeInMs: [],
    turnMs: [],
    endMs: [],
    lastSpeechErrorMs: [],
    cpuMsPerMinute: (cpuMs * 60_000) / audioMs,
  };
  for (const { scene, kinds, events } of outcomes) {
    const ends = events.filter((e) => e.type === 'end');
    kinds.forEach((kind, f) => {
      const at = f * FRAME_MS;
      const truth = scene.truth[f]!;
      const inStretch = ends.some((e) => e.startedAt <= at && at <= e.lastSpeechAt);
      count.frames++;
      if ((kind !== 'silence') === truth) count.right++;
      if (inStretch === truth) count.stretchRight++;
      if (truth) {
        count.voice++;
        if (inStretch) count.voiceIn++;
      } else {
        count.other++;
        if (inStretch) count.otherIn++;
      }
    });
    const turns = events.filter((e) => e.type === 'turn');
    const bargeIns = events.filter((e) => e.type === 'speech');
    if (!scene.isTurn) {
      result.falseTurns += turns.length;
      result.falseBargeIns += bargeIns.length;
      continue;
    }
    const expected = truthTurns(scene.truth);
    result.turns += expected.length;
    const matched = new Set<VoiceActivityEvent>();
    for (const { first, last } of expected) {
      const within = (e: VoiceActivityEvent) => e.startedAt <= last && e.startedAt >= first - 2 * DEFAULT_VOICE_ACTIVITY.hangoverMs;
      const turn = turns.find((e) => within(e) && !matched.has(e));
      if (!turn) continue;
      matched.add(turn);
      result.turnsFound++;
      result.turnMs.push(turn.at - first);
      const bargeIn = bargeIns.find((e) => e.startedAt === turn.startedAt);
      if (bargeIn) result.bargeInMs.push(bargeIn.at - first);
      const end = ends.find((e) => e.startedAt === turn.startedAt);
      if (end?.type === 'end') {
        result.endMs.push(end.at - last);
        result.lastSpeechErrorMs.push(Math.abs(end.lastSpeechAt - last));
      }
    }
    result.falseTurns += turns.length - matched.size;
  }
  result.frameAccuracy = count.right / count.frames;
  result.stretchAccuracy = count.stretchRight / count.frames;
  result.stretchRecall = count.voiceIn / count.voice;
  result.stretchFalse = count.otherIn / count.other;
  return result;
}

/** "p50 · max" of a list of milliseconds, or "–". */
export function spread(values: number[]): string {
  if (values.length === 0) return '–';
  return `${median(values).toFixed(0)} · ${percentile(values, 100).toFixed(0)}`;
}
