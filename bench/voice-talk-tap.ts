import type { Readable } from 'node:stream';
import type { DiscordVoiceLink } from '../adapters/discord/voice/discord-voice-link.ts';
import type { HeardAudio, VoiceLink, VoiceLoss } from '../src/voice/voice-link.ts';

/** A heard frame louder than this is the user's voice (the level the detector scenes call voice). */
const VOICE_DB = -50;

function levelDb(pcm: Int16Array): number {
  let sum = 0;
  for (const v of pcm) sum += v * v;
  return sum === 0 ? -100 : 10 * Math.log10(sum / pcm.length / 32768 ** 2);
}

/**
 * Herald's voice link with a stopwatch on both ends: when each heard frame with voice in it arrived, and when
 * each Opus packet of speech was handed to the voice connection (the player's `prepareAudioPacket`; Opus
 * silence frames excluded). Times are this thread's `performance.now()`.
 */
export class TappedLink implements VoiceLink {
  readonly #link: DiscordVoiceLink;
  /** Arrival of every heard frame with voice, in order. */
  readonly voiced: number[] = [];
  /** Every speech packet handed to the connection, in order. */
  readonly handed: number[] = [];
  readonly #waiters = new Set<() => void>();

  constructor(link: DiscordVoiceLink) {
    this.#link = link;
    const connection = link.connection!;
    const prepare = connection.prepareAudioPacket.bind(connection);
    connection.prepareAudioPacket = (packet: Buffer) => {
      if (!(packet.length === 3 && packet[0] === 0xf8)) {
        this.handed.push(performance.now());
        for (const wake of this.#waiters) wake();
      }
      return prepare(packet);
    };
  }

  get channelId(): string {
    return this.#link.channelId;
  }

  /** Resolves with the first packet handed over after `since`. */
  async firstPacketAfter(since: number): Promise<number> {
    for (;;) {
      const found = this.handed.find((at) => at > since);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      });
    }
  }

  /** The last heard voice frame in [from, to). */
  lastVoiceBetween(from: number, to: number): number | undefined {
    return this.voiced.findLast((at) => at >= from && at < to);
  }

  firstVoiceAfter(since: number): number | undefined {
    return this.voiced.find((at) => at > since);
  }

  listen(onAudio: (audio: HeardAudio) => void): () => void {
    return this.#link.listen((audio) => {
      if (levelDb(audio.pcm) > VOICE_DB) this.voiced.push(audio.at);
      onAudio(audio);
    });
  }

  play(packets: Readable): Promise<void> {
    return this.#link.play(packets);
  }

  stopPlayback(): void {
    this.#link.stopPlayback();
  }

  leave(): void {
    this.#link.leave();
  }

  onLost(listener: (loss: VoiceLoss) => void): void {
    this.#link.onLost(listener);
  }

  onMoved(listener: (channelId: string) => void): void {
    this.#link.onMoved(listener);
  }
}
