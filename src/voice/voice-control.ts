import type { SpeechInput } from '../capabilities/synthesize.ts';

/** What to say: the text and how, as /say takes it. */
export type SpeechRequest = Pick<SpeechInput, 'text' | 'voice' | 'style' | 'sing'>;

export type SpeechOutcome =
  | { status: 'played' }
  | { status: 'skipped' }
  | { status: 'stopped' }
  /** Dropped unplayed to keep a busy narrated channel from building a backlog. */
  | { status: 'dropped' }
  /** `message` is fit to show the user. */
  | { status: 'failed'; message: string };

export interface SpeechTicket {
  /** The voice channel it plays in. */
  channelName: string;
  /** Speeches queued ahead of this one when it was added (0: it starts now). */
  ahead: number;
  /** Settles when the speech has played, was skipped, stopped or dropped, or failed. */
  finished: Promise<SpeechOutcome>;
}

export interface NarrationStart {
  textChannelName: string;
  voiceChannelName: string;
  /** The guild's narration voice and style now in use. */
  voice?: string;
  style?: string;
}

export interface TalkStart {
  voiceChannelName: string;
  /** The name Herald answers to there. */
  name: string;
}

/**
 * Voice in the invoking user's server, bound to who asked where (like a command's replies). Failures
 * the user can act on (not in voice, missing permissions, full channel) throw VoiceError.
 */
export interface VoiceControl {
  /** Joins the user's voice channel if needed and queues live speech there. */
  say(request: SpeechRequest): Promise<SpeechTicket>;
  /** Silences the bot and clears the queue; returns how many speeches were stopped or removed. */
  stop(): Promise<number>;
  /** Ends the current speech and goes on with the next; false when nothing was playing. */
  skip(): Promise<boolean>;
  /**
   * Reads new messages of a text channel aloud in the user's voice channel. `channel` names the text
   * channel (mention, id or name); default: where the command was used. Voice and style given here
   * become the server's narration defaults.
   */
  startNarration(options: { channel?: string; voice?: string; style?: string }): Promise<NarrationStart>;
  /** Ends narration in this server; false when none was running. */
  stopNarration(): Promise<boolean>;
  /**
   * Joins the user's voice channel and listens there (a talk session), where the server allows listening.
   * Busy in another channel, it moves only when `move` is set.
   */
  startTalk(options: { transcript: boolean; move: boolean }): Promise<TalkStart>;
  /** Ends the talk session in this server; false when none was running. */
  stopTalk(): Promise<boolean>;
  /** Whether this user asked for /say to speak in voice by default. */
  prefersVoice(): Promise<boolean>;
  setPrefersVoice(prefers: boolean): Promise<void>;
}
