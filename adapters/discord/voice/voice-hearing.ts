import { EndBehaviorType, type AudioReceiveStream, type VoiceReceiver } from '@discordjs/voice';
import type { Logger } from '../../../src/log/logger.ts';
import type { OpusBackend } from '../../../src/media/opus-backend.ts';
import type { HeardAudio } from '../../../src/voice/voice-link.ts';
import { HeardOpusDecoder } from './heard-opus-decoder.ts';

export interface VoiceHearingOptions {
  guildId: string;
  logger: Logger;
  /** Whether a user is a bot: known at once from the client's cache, or looked up. */
  isBot(userId: string): boolean | Promise<boolean>;
  deliver(audio: HeardAudio): void;
  opusBackend?: OpusBackend;
}

/** Discord clients end each talkspurt with these; they carry no sound. */
const OPUS_SILENCE_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);
/** Frames of a speaker held back while we find out whether they are a bot (1 s). */
const MAX_HELD_FRAMES = 50;
/** A speaker may send 50 frames a second, with bursts of 2 s (network jitter); anything beyond is dropped. */
const FRAMES_PER_SECOND = 50;
const BURST_FRAMES = 100;
/** How long after a speaker's last packet the receiver reports them silent (its SpeakingMap.DELAY). */
const SPEAKING_END_DELAY_MS = 100;
/** A burst of packets this long with no sound in it means the receiver is failing (a talkspurt's end is 100 ms). */
const SOUNDLESS_BURST_MS = 200;

/** One person being heard: their receive stream, decoder and budget. */
interface Speaker {
  userId: string;
  stream: AudioReceiveStream;
  decoder: HeardOpusDecoder;
  /** Frames waiting for the bot check, or null once the speaker is known to be a person. */
  held: HeardAudio[] | null;
  /** When the speaker last started sending, and how many sound packets the receiver has handed over since. */
  burstStartedAt: number;
  soundPackets: number;
  tokens: number;
  refilledAt: number;
}

/**
 * Hears the people of a voice channel through @discordjs/voice's receiver: it subscribes to each person who
 * starts sending (bots excepted), decodes their Opus and hands on 20 ms frames as they come, never storing
 * more than a second per speaker. Voice receive is undocumented by Discord: when packets keep arriving but the
 * receiver yields no audio (DAVE decryption failing, say), it logs a warning once rather than going quiet.
 */
export class VoiceHearing {
  readonly #options: VoiceHearingOptions;
  readonly #speakers = new Map<string, Speaker>();
  readonly #bots = new Set<string>();
  #receiver: VoiceReceiver | undefined;
  readonly #warned = new Set<string>();
  #stopped = false;

  constructor(options: VoiceHearingOptions) {
    this.#options = options;
  }

  /** Hears through this receiver (a rejoin brings a new one); idempotent. */
  attach(receiver: VoiceReceiver): void {
    if (this.#stopped || receiver === this.#receiver) return;
    this.#detach();
    this.#receiver = receiver;
    receiver.speaking.on('start', this.#onStart);
    receiver.speaking.on('end', this.#onEnd);
    for (const userId of receiver.speaking.users.keys()) this.#onStart(userId);
  }

  /** Nothing more is delivered after this. */
  stop(): void {
    this.#stopped = true;
    this.#detach();
  }

  #detach(): void {
    const receiver = this.#receiver;
    this.#receiver = undefined;
    receiver?.speaking.off('start', this.#onStart);
    receiver?.speaking.off('end', this.#onEnd);
    for (const speaker of [...this.#speakers.values()]) this.#drop(speaker);
  }

  readonly #onStart = (userId: string): void => {
    const known = this.#speakers.get(userId);
    if (known) {
      known.burstStartedAt = performance.now();
      known.soundPackets = 0;
      return;
    }
    if (this.#stopped || this.#bots.has(userId)) return;
    let verdict: boolean | Promise<boolean>;
    try {
      verdict = this.#options.isBot(userId);
    } catch (error) {
      verdict = Promise.reject(error);
    }
    if (verdict === true) {
      this.#bots.add(userId);
      return;
    }
    const speaker = this.#subscribe(userId, verdict === false);
    if (typeof verdict === 'boolean') return;
    verdict.then(
      (bot) => {
        if (this.#speakers.get(userId) !== speaker) return;
        if (bot) {
          this.#bots.add(userId);
          this.#drop(speaker);
          return;
        }
        const held = speaker.held ?? [];
        speaker.held = null;
        for (const audio of held) this.#options.deliver(audio);
      },
      (error: unknown) => {
        // Not heard this time; the next time they speak, they are looked up again.
        this.#warnOnce('lookup', { userId, err: error }, 'voice: could not tell whether a speaker is a bot; not listening to them');
        if (this.#speakers.get(userId) === speaker) this.#drop(speaker);
      },
    );
  };

  readonly #onEnd = (userId: string): void => {
    const speaker = this.#speakers.get(userId);
    if (!speaker) return;
    const burstMs = performance.now() - speaker.burstStartedAt - SPEAKING_END_DELAY_MS;
    if (speaker.soundPackets === 0 && burstMs >= SOUNDLESS_BURST_MS) {
      this.#warnOnce(
        'undelivered',
        { userId, burstMs: Math.round(burstMs) },
        'voice: packets arrive from a speaker but the receiver yields no audio (decryption failing?)',
      );
    }
  };

  #subscribe(userId: string, person: boolean): Speaker {
    const receiver = this.#receiver!;
    const stream = receiver.subscribe(userId, { end: { behavior: EndBehaviorType.Manual } });
    const speaker: Speaker = {
      userId,
      stream,
      decoder: new HeardOpusDecoder((pcm) => this.#onFrame(speaker, pcm), { backend: this.#options.opusBackend, maxPending: MAX_HELD_FRAMES }),
      held: person ? null : [],
      burstStartedAt: performance.now(),
      soundPackets: 0,
      tokens: BURST_FRAMES,
      refilledAt: performance.now(),
    };
    this.#speakers.set(userId, speaker);
    stream.on('data', (packet: Buffer) => this.#onPacket(speaker, packet));
    stream.once('error', (error) => this.#warnOnce('stream', { userId, err: error }, 'voice: the receive stream of a speaker failed'));
    // The receiver ends a stream it could not decrypt: hear the speaker afresh when they next send.
    stream.once('close', () => {
      if (this.#speakers.get(userId) === speaker) this.#drop(speaker);
    });
    return speaker;
  }

  #onPacket(speaker: Speaker, packet: Buffer): void {
    if (this.#stopped) return;
    if (packet.equals(OPUS_SILENCE_FRAME)) return;
    speaker.soundPackets++;
    const now = performance.now();
    speaker.tokens = Math.min(BURST_FRAMES, speaker.tokens + ((now - speaker.refilledAt) * FRAMES_PER_SECOND) / 1000);
    speaker.refilledAt = now;
    if (speaker.tokens < 1) {
      this.#warnOnce('flood', { userId: speaker.userId }, 'voice: a speaker sends faster than real time; dropping the excess');
      return;
    }
    speaker.tokens -= 1;
    try {
      speaker.decoder.decode(packet);
    } catch (error) {
      this.#warnOnce('decode', { userId: speaker.userId, err: error }, 'voice: a received Opus packet could not be decoded');
    }
  }

  #onFrame(speaker: Speaker, pcm: Int16Array): void {
    const audio: HeardAudio = { userId: speaker.userId, pcm, at: performance.now() };
    if (speaker.held === null) this.#options.deliver(audio);
    else if (speaker.held.length < MAX_HELD_FRAMES) speaker.held.push(audio);
  }

  #drop(speaker: Speaker): void {
    this.#speakers.delete(speaker.userId);
    speaker.decoder.free();
    speaker.stream.removeAllListeners('data');
    if (!speaker.stream.destroyed) speaker.stream.destroy();
  }

  /** Each kind of trouble is logged once per hearing, so a broken receiver cannot flood the logs. */
  #warnOnce(kind: string, fields: Record<string, unknown>, message: string): void {
    if (this.#warned.has(kind)) return;
    this.#warned.add(kind);
    this.#options.logger.warn({ guildId: this.#options.guildId, ...fields }, message);
  }
}
