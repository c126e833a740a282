import { setTimeout as sleep } from 'node:timers/promises';
import { ClientOpusEncoder } from './client-opus.ts';
import { OPUS_PAYLOAD_TYPE, OPUS_SILENCE_FRAME, SAMPLES_PER_FRAME, VoiceOp } from './protocol.ts';
import type { SpeakerStream, VoiceServerState } from './state.ts';
import { encryptTransport } from './transport-crypto.ts';
import type { VoiceUdpEndpoint } from './udp.ts';

export interface SpeakOptions {
  /**
   * Discord's input modes: `voice-activity` (the default) transmits only while the microphone hears sound, with
   * a short hangover, so pauses within the buffer become gaps; `open-mic` (push-to-talk held down) sends every frame.
   */
  input?: 'voice-activity' | 'open-mic';
  /** Milliseconds between frames: 20 is real time (the default); less sends faster, for unit tests. */
  frameIntervalMs?: number;
  /** Fault: the frames' E2EE layer is damaged, as if the client encrypted with keys the bot does not have. */
  undecryptable?: boolean;
}

export interface SpokenAudio {
  userId: string;
  ssrc: number;
  /** The Opus frames the user's client sent, before end-to-end encryption, in order (silence frames excluded). */
  opus: Buffer[];
  /** For each of them, the index of its first sample in the spoken buffer. */
  sampleOffsets: number[];
  /** Runs of frames sent without a break, each ended by five silence frames. */
  talkspurts: number;
  /** Packets (silence frames included) that reached the bot: none while it is server-deafened or not connected. */
  forwarded: number;
}

/** A frame quieter than this (RMS, about -40 dBFS) does not open the client's voice-activity gate. */
const GATE_RMS = 330;
/** Frames of quiet after which the client stops transmitting (its voice-activity hangover). */
const HANGOVER_FRAMES = 10;
/** A client ends each talkspurt with five Opus silence frames, so receivers' decoders do not interpolate. */
const TRAILING_SILENCE_FRAMES = 5;
/** Header extension id for the RFC 6464 audio level a client attaches to each packet. */
const AUDIO_LEVEL_EXTENSION_ID = 1;
/** Time for a Speaking op to cross the websocket before the first packet of that SSRC follows. */
const ANNOUNCE_LEAD_MS = 20;
const MICROPHONE = 1;

function frameRms(frame: Int16Array): number {
  let sum = 0;
  for (const sample of frame) sum += sample * sample;
  return frame.length === 0 ? 0 : Math.sqrt(sum / frame.length);
}

/** RFC 6464 level: -dBov, 0 (loudest) to 127 (silence), with the voice-activity bit on top. */
function audioLevel(rms: number, voiced: boolean): number {
  const dbov = rms <= 0 ? 127 : Math.min(127, Math.round(-20 * Math.log10(rms / 32768)));
  return (voiced ? 0x80 : 0) | dbov;
}

/**
 * A fake user speaks `pcm` (48 kHz mono s16le) into the call: the server tells the bot the user's SSRC (opcode 5,
 * once per bot session, as Discord does), then forwards the client's RTP every frame interval: Opus, end-to-end
 * encrypted by the user's DAVE session, transport-encrypted with the bot's mode and key. Resolves after the last
 * silence frame.
 */
export async function speak(
  state: VoiceServerState,
  udp: VoiceUdpEndpoint,
  userId: string,
  pcm: Int16Array,
  options: SpeakOptions = {},
): Promise<SpokenAudio> {
  const stream = state.speakers.get(userId);
  if (!stream || !state.users.includes(userId)) throw new Error(`${userId} is not in the voice channel`);
  if (stream.busy) throw new Error(`${userId} is already speaking`);
  stream.busy = true;
  const interval = options.frameIntervalMs ?? 20;
  const openMic = options.input === 'open-mic';
  const encoder = new ClientOpusEncoder();
  const spoken: SpokenAudio = { userId, ssrc: stream.ssrc, opus: [], sampleOffsets: [], talkspurts: 0, forwarded: 0 };
  try {
    // The sample clock ran on while the user was quiet.
    const now = performance.now();
    stream.timestamp = (stream.timestamp + Math.round((now - stream.clockAt) * 48)) >>> 0;
    if (announce(state, stream)) await sleep(ANNOUNCE_LEAD_MS);
    const frames = Math.ceil(pcm.length / SAMPLES_PER_FRAME);
    const start = performance.now();
    let talking = false;
    let quietFrames = 0;
    let silenceLeft = 0;
    for (let index = 0; index < frames || silenceLeft > 0 || talking; index++) {
      const due = start + index * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      else if (interval === 0 || index % 50 === 49) await sleep(0);
      if (!state.users.includes(userId)) break; // left the call mid-sentence
      const frame = index < frames ? pcm.subarray(index * SAMPLES_PER_FRAME, (index + 1) * SAMPLES_PER_FRAME) : new Int16Array(0);
      const rms = frameRms(frame);
      const voiced = index < frames && (openMic || rms >= GATE_RMS);
      if (voiced || (talking && index < frames && ++quietFrames <= HANGOVER_FRAMES)) {
        if (voiced) quietFrames = 0;
        // RFC 3551 §4.1: the marker bit flags the first packet of a talkspurt.
        const marker = !talking && silenceLeft === 0;
        if (marker) spoken.talkspurts++;
        talking = true;
        silenceLeft = TRAILING_SILENCE_FRAMES;
        const opus = encoder.encode(frame);
        spoken.opus.push(opus);
        spoken.sampleOffsets.push(index * SAMPLES_PER_FRAME);
        const relayed = { marker, level: audioLevel(rms, voiced), damage: options.undecryptable ?? false };
        if (forward(state, udp, stream, opus, relayed)) spoken.forwarded++;
      } else if (silenceLeft > 0) {
        talking = false;
        quietFrames = 0;
        silenceLeft--;
        if (forward(state, udp, stream, OPUS_SILENCE_FRAME, { marker: false, level: 127, damage: false })) spoken.forwarded++;
      }
      stream.timestamp = (stream.timestamp + SAMPLES_PER_FRAME) >>> 0;
      stream.clockAt = performance.now();
    }
    return spoken;
  } finally {
    encoder.delete();
    stream.busy = false;
  }
}

/** Opcode 5 to the bot the first time its session could hear this user; true when it was sent now. */
function announce(state: VoiceServerState, stream: SpeakerStream): boolean {
  const session = state.sessions.get(state.config.sessionId);
  if (!session || session.announcedSpeakers.has(stream.userId)) return false;
  session.announcedSpeakers.add(stream.userId);
  session.send(VoiceOp.Speaking, { user_id: stream.userId, ssrc: stream.ssrc, speaking: MICROPHONE });
  return true;
}

/**
 * The server relays one packet of the user's stream to the bot. Every packet uses a sequence number; nothing
 * reaches a bot without keys or address, nor a server-deafened one, nor one the user cannot yet encrypt for.
 * Opus silence frames travel without the E2EE layer, as DAVE specifies.
 */
function forward(
  state: VoiceServerState,
  udp: VoiceUdpEndpoint,
  stream: SpeakerStream,
  opus: Buffer,
  { marker, level, damage }: { marker: boolean; level: number; damage: boolean },
): boolean {
  const sequence = stream.sequence;
  stream.sequence = (stream.sequence + 1) & 0xffff;
  const session = state.sessions.get(state.config.sessionId);
  if (!session?.mode || !session.secretKey || !session.selectedAddress || state.botServerDeaf) return false;
  if (!session.announcedSpeakers.has(stream.userId)) announce(state, stream);
  const payload = opus.equals(OPUS_SILENCE_FRAME) ? opus : state.dave.encrypt(stream.userId, opus);
  if (!payload) return false;
  if (damage) payload.writeUInt8(payload[0]! ^ 0xff, 0);
  const clear = Buffer.alloc(16);
  clear[0] = 0x90; // version 2, extension present, no padding, no CSRCs
  clear[1] = (marker ? 0x80 : 0) | OPUS_PAYLOAD_TYPE;
  clear.writeUInt16BE(sequence, 2);
  clear.writeUInt32BE(stream.timestamp, 4);
  clear.writeUInt32BE(stream.ssrc, 8);
  clear.writeUInt16BE(0xbede, 12); // RFC 8285 one-byte header extensions
  clear.writeUInt16BE(1, 14); // one 32-bit word of them
  // One element (id, length - 1 = 0) holding the level, then padding to the word.
  const extension = Buffer.from([(AUDIO_LEVEL_EXTENSION_ID << 4) | 0, level, 0, 0]);
  session.outboundNonce = (session.outboundNonce + 1) >>> 0;
  udp.send(
    encryptTransport(session.mode, session.secretKey, clear, Buffer.concat([extension, payload]), session.outboundNonce),
    session.selectedAddress,
  );
  return true;
}
