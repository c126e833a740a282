import type { Readable } from 'node:stream';

/** Why a link is gone for good. */
export interface VoiceLoss {
  /** Fit for users. */
  reason: string;
  /** Someone removed the bot (a moderator disconnected it, or the channel went): nothing may pull it back in. */
  removed: boolean;
}

/** 20 ms of one person's voice, as heard in the channel. */
export interface HeardAudio {
  /** The speaker's platform user id (never a bot's). */
  userId: string;
  /** 960 samples: 48 kHz mono signed 16-bit PCM. */
  pcm: Int16Array;
  /** When it arrived, in `performance.now()` milliseconds. */
  at: number;
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
  /**
   * Hears the people in the channel, bots excepted: the bot stops being deafened and `onAudio` gets every frame
   * until the returned function is called (the bot is deafened again). One listener at a time: a new one takes the
   * place of the last. Absent where the platform cannot hear.
   * Nothing arrives while a person is silent: a gap in their frames is silence.
   */
  listen?(onAudio: (audio: HeardAudio) => void): () => void;
  /** Called once when the connection is gone for good (rejoining failed, or the bot was removed). */
  onLost(listener: (loss: VoiceLoss) => void): void;
  /** Called when someone moved the bot to another voice channel of the guild; the link carries on there. */
  onMoved(listener: (channelId: string) => void): void;
}

/** Joins a voice channel of one guild; rejects with a VoiceError when that is not possible. */
export type VoiceJoiner = (channelId: string) => Promise<VoiceLink>;
