import type { Readable } from 'node:stream';

/** The bot's presence in one voice channel of one guild, as a platform adapter provides it. */
export interface VoiceLink {
  readonly channelId: string;
  /**
   * Plays Opus packets (object-mode Readable of 20 ms packets). Resolves once they have been played,
   * or at once when playback is stopped or the connection is lost for good.
   */
  play(packets: Readable): Promise<void>;
  /** Ends the current playback; its play() resolves. */
  stopPlayback(): void;
  /** Leaves the channel; the link cannot be used afterwards. */
  leave(): void;
  /** Called once when the connection is gone for good (rejoining failed, or the bot was removed); `reason` is fit for users. */
  onLost(listener: (reason: string) => void): void;
}

/** Joins a voice channel of one guild; rejects with a VoiceError when that is not possible. */
export type VoiceJoiner = (channelId: string) => Promise<VoiceLink>;
