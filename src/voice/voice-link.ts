import type { Readable } from 'node:stream';

/** Why a link is gone for good. */
export interface VoiceLoss {
  /** Fit for users. */
  reason: string;
  /** Someone removed the bot (a moderator disconnected it, or the channel went): nothing may pull it back in. */
  removed: boolean;
}

/** The bot's presence in one voice channel of one guild, as a platform adapter provides it. */
export interface VoiceLink {
  /** The channel the bot is in: it changes when someone moves the bot elsewhere. */
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
  /** Called once when the connection is gone for good (rejoining failed, or the bot was removed). */
  onLost(listener: (loss: VoiceLoss) => void): void;
  /** Called when someone moved the bot to another voice channel of the guild; the link carries on there. */
  onMoved(listener: (channelId: string) => void): void;
}

/** Joins a voice channel of one guild; rejects with a VoiceError when that is not possible. */
export type VoiceJoiner = (channelId: string) => Promise<VoiceLink>;
