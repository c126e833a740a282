import type { SpeechInput } from '../../capabilities/synthesize.ts';
import type { Transcript, TranscribeInput } from '../../capabilities/transcribe.ts';
import type { QuotaDenial, QuotaSubject, UserLimits } from '../../conversation/quotas.ts';
import type { HandleOptions, IncomingMessage, ReplyStream, ReplyUsage } from '../../conversation/types.ts';
import type { Logger } from '../../log/logger.ts';
import type { OpusFrameStreamOptions } from '../../media/speech/opus-frame-stream.ts';
import type { Citation } from '../../service/types.ts';
import type { VoiceLink } from '../voice-link.ts';
import type { VoiceActivity } from './voice-activity.ts';

/** The voice channel a session listens in, as the platform shows it. */
export interface TalkRoom {
  /** People (not bots) in the channel now, Herald not counted. */
  people(): number;
  displayName(userId: string): string;
  /** Posts in the channel's text chat (sources listed under the text). */
  post(text: string, citations?: readonly Citation[]): Promise<void>;
}

/** What a session spends: every cost is charged to the speaker whose turn caused it. */
export interface TalkServices {
  answer(message: IncomingMessage, options: HandleOptions): ReplyStream;
  transcribe(input: TranscribeInput): Promise<Transcript>;
  synthesize(input: SpeechInput): AsyncIterable<Uint8Array>;
  spending: {
    admit(subject: QuotaSubject, limits?: UserLimits): Promise<QuotaDenial | null>;
    withinBudget(subject: QuotaSubject, limits?: UserLimits): Promise<QuotaDenial | null>;
    record(subject: QuotaSubject, usage: ReplyUsage): Promise<void>;
  };
  /** A new speaker's voice-activity detector. */
  activity(): VoiceActivity;
}

/** What else plays in the channel (a /say, narration): it yields to the conversation. */
export interface OtherSpeech {
  /** Settles when what plays now has ended (undefined: nothing plays): an answer waits for it. */
  ended(): Promise<unknown> | undefined;
  /** Someone started speaking: what plays holds within a packet or two. */
  hold(): void;
  /** Nobody speaks and no turn waits to be understood: what was held goes on. */
  release(): void;
}

export interface TalkSessionOptions {
  platform: string;
  guildId: string;
  link: VoiceLink;
  room: TalkRoom;
  services: TalkServices;
  /** Who started the session: their leaving ends it. */
  startedBy: string;
  /** The name Herald answers to in voice. */
  name: string;
  /** Post each turn's transcript and Herald's answer in the channel's chat. */
  transcript: boolean;
  /** The speech voice. */
  voice: string;
  limits?: UserLimits;
  /** The session ends after this long without a turn. */
  idleMs: number;
  logger: Logger;
  opus?: OpusFrameStreamOptions;
  /** The clock heard frames are stamped with. Default `performance.now()`. */
  clock?: () => number;
  otherSpeech?: OtherSpeech;
  /** Told once when the session has ended (unsubscribed, answer stopped). */
  onEnd(reason: string): void;
}
