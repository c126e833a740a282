import type { SpeechInput } from '../../capabilities/synthesize.ts';
import type { Transcript, TranscribeInput } from '../../capabilities/transcribe.ts';
import type { QuotaDenial, QuotaSubject, UserLimits } from '../../conversation/quotas.ts';
import type { HandleOptions, IncomingMessage, ReplyStream, ReplyUsage } from '../../conversation/types.ts';
import { humanDuration } from '../../conversation/clock.ts';
import { addUsage, emptyUsage } from '../../conversation/usage-meter.ts';
import { describeError } from '../../errors.ts';
import type { Logger } from '../../log/logger.ts';
import type { OpusFrameStreamOptions } from '../../media/speech/opus-frame-stream.ts';
import type { Citation } from '../../service/types.ts';
import type { HeardAudio, VoiceLink } from '../voice-link.ts';
import { SentenceCutter, spokenText } from './sentence-cutter.ts';
import { SpokenAnswer } from './spoken-answer.ts';
import { TurnAudio } from './turn-audio.ts';
import type { VoiceActivity, VoiceActivityEvent } from './voice-activity.ts';
import { matchName } from './voice-name.ts';

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

/** Frames kept from before speech was recognized, so a turn's first syllable is not lost. */
const PREROLL_MS = 500;
/** The longest turn: past it the turn ends where it is. */
const MAX_TURN_SECONDS = 30;
/** How often speakers who went quiet (sending no frames) are checked for the end of their speech. */
const SILENCE_CHECK_MS = 20;

interface Speaker {
  activity: VoiceActivity;
  audio: TurnAudio;
}

interface Answer {
  /** Absent when the speaker's budget has no room for speech: the answer is posted as text instead. */
  spoken?: SpokenAnswer;
  controller: AbortController;
  playing?: Promise<void>;
  /** Its packets have been handed to the link. */
  onLink?: boolean;
}

/**
 * A spoken conversation in one voice channel: each speaker's audio goes through voice-activity detection into
 * turns; a turn for Herald (its name said first when others are present) is transcribed, answered through the
 * engine in the session's one conversation, and spoken sentence by sentence as the answer streams. Anyone
 * speaking over Herald pauses it; it resumes when that was not a turn for it, and stops for a new one that was.
 */
export class TalkSession {
  readonly #options: TalkSessionOptions;
  readonly #speakers = new Map<string, Speaker>();
  /** Speakers whose speech is going on: Herald holds its answer meanwhile. */
  readonly #speaking = new Set<string>();
  readonly #threadId = `talk-${Date.now().toString(36)}`;
  readonly #pauseWaiters: (() => void)[] = [];
  #turns: Promise<void> = Promise.resolve();
  #pendingTurns = 0;
  #turnCount = 0;
  #answer: Answer | undefined;
  #unlisten: (() => void) | undefined;
  #silenceCheck: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(options: TalkSessionOptions) {
    this.#options = options;
  }

  get startedBy(): string {
    return this.#options.startedBy;
  }

  get channelId(): string {
    return this.#options.link.channelId;
  }

  /** Starts listening; the link must be able to hear. */
  start(): void {
    const { link } = this.#options;
    if (!link.listen) throw new Error('this voice link cannot hear');
    this.#unlisten = link.listen((audio) => this.#heard(audio));
    this.#silenceCheck = setInterval(() => this.#checkSilence(), SILENCE_CHECK_MS);
    this.#silenceCheck.unref();
    this.#touch();
  }

  /** Resolves when nobody is speaking and Herald has no answer going (or the session ended): /say may play then. */
  untilPause(): Promise<void> {
    if (this.#quiet()) return Promise.resolve();
    return new Promise((resolve) => this.#pauseWaiters.push(resolve));
  }

  /** Stops listening and answering; `reason` is posted in the channel's chat. */
  end(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#unlisten?.();
    clearInterval(this.#silenceCheck);
    clearTimeout(this.#idleTimer);
    this.#stopAnswer();
    for (const speaker of this.#speakers.values()) speaker.activity.free();
    this.#speakers.clear();
    this.#speaking.clear();
    this.#options.otherSpeech?.release();
    this.#notifyPause();
    this.#options.logger.info({ reason, turns: this.#turnCount }, 'talk: session ended');
    void this.#post(`🔇 Stopped listening: ${reason}`);
    this.#options.onEnd(reason);
  }

  #heard(audio: HeardAudio): void {
    if (this.#ended) return;
    let speaker = this.#speakers.get(audio.userId);
    if (!speaker) {
      speaker = { activity: this.#options.services.activity(), audio: new TurnAudio({ prerollMs: PREROLL_MS, maxSeconds: MAX_TURN_SECONDS }) };
      this.#speakers.set(audio.userId, speaker);
    }
    speaker.audio.add(audio.pcm);
    this.#onActivity(audio.userId, speaker, speaker.activity.frame(audio.pcm, audio.at));
    if (speaker.audio.recording && speaker.audio.full) {
      // A turn at its longest is taken as it is; what follows is recorded as the next.
      this.#turnHeard(audio.userId, speaker);
      speaker.audio.start();
    }
  }

  #checkSilence(): void {
    const now = (this.#options.clock ?? performance.now.bind(performance))();
    for (const [userId, speaker] of this.#speakers) this.#onActivity(userId, speaker, speaker.activity.silence(now));
  }

  #onActivity(userId: string, speaker: Speaker, event: VoiceActivityEvent | undefined): void {
    if (!event) return;
    if (event.type === 'speech') {
      speaker.audio.start();
      this.#speaking.add(userId);
      this.#options.otherSpeech?.hold();
      const spoken = this.#answer?.spoken;
      if (spoken && !spoken.paused) {
        spoken.pause();
        this.#options.logger.debug({ userId }, 'talk: someone speaks over the answer; paused');
      }
    } else if (event.type === 'turn') {
      this.#touch();
    } else {
      this.#speaking.delete(userId);
      if (event.turn && speaker.audio.recording) this.#turnHeard(userId, speaker);
      else {
        speaker.audio.discard();
        this.#resumeIfQuiet();
      }
    }
  }

  #turnHeard(userId: string, speaker: Speaker): void {
    const heard = speaker.audio.take();
    this.#pendingTurns++;
    this.#turns = this.#turns
      .then(() => this.#takeTurn(userId, heard.wav))
      .catch(async (error: unknown) => {
        this.#options.logger.warn({ err: error, userId }, 'talk: a turn failed');
        await this.#post(`⚠️ ${this.#options.room.displayName(userId)}: ${describeError(error).message}`);
      })
      .finally(() => {
        this.#pendingTurns--;
        this.#resumeIfQuiet();
      });
  }

  /** Transcribes a turn and, when it is for Herald, answers it in place of any answer going on. */
  async #takeTurn(userId: string, wav: Buffer): Promise<void> {
    if (this.#ended) return;
    const { services, platform, guildId, limits, logger, room, name } = this.#options;
    const subject: QuotaSubject = { platform, userId, workspaceId: guildId };
    const denial = await services.spending.admit(subject, limits);
    if (denial) {
      logger.info({ userId, code: denial.code }, 'talk: turn not transcribed, its budget is spent');
      await this.#post(`⚠️ ${room.displayName(userId)}: ${denial.message}`);
      return;
    }
    const usage = emptyUsage();
    let text: string;
    try {
      const transcript = await services.transcribe({ audio: { mime: 'audio/wav', data: wav } });
      addUsage(usage, transcript.usage);
      text = transcript.text.trim();
    } finally {
      await this.#record(subject, usage);
    }
    if (this.#ended || text === '') return;
    const people = room.people();
    if (people >= 2 && !matchName(text, name).addressed) {
      logger.debug({ userId, people }, 'talk: a turn not for Herald');
      return;
    }
    this.#turnCount++;
    this.#touch();
    if (this.#options.transcript) await this.#post(`🗣️ **${room.displayName(userId)}:** ${text}`);
    this.#stopAnswer();
    void this.#answerTurn(userId, text);
  }

  async #answerTurn(userId: string, text: string): Promise<void> {
    const { services, platform, guildId, link, room, voice, opus, logger, limits, name } = this.#options;
    const subject: QuotaSubject = { platform, userId, workspaceId: guildId };
    const answer: Answer = { controller: new AbortController() };
    const { controller } = answer;
    this.#answer = answer;
    let spoken: SpokenAnswer | undefined;
    let written = '';
    let citations: readonly Citation[] = [];
    let denial: QuotaDenial | null = null;
    const say = (sentence: string) => {
      const words = spokenText(sentence);
      if (words === '' || !spoken) return;
      spoken.add(words);
      answer.playing ??= this.#play(answer, spoken);
    };
    const message: IncomingMessage = {
      platform,
      workspaceId: guildId,
      channelId: link.channelId,
      threadId: this.#threadId,
      messageId: `${this.#threadId}-${this.#turnCount}`,
      author: { id: userId, displayName: room.displayName(userId) },
      text,
      isDirect: false,
    };
    const cutter = new SentenceCutter();
    try {
      // Speech is a cost of its own: admitted before any is synthesized.
      denial = await services.spending.admit(subject, limits);
      if (denial) logger.info({ userId, code: denial.code }, 'talk: answer written, not spoken: its budget is spent');
      else {
        spoken = new SpokenAnswer((sentence, signal) => services.synthesize({ text: sentence, voice, signal }), opus);
        answer.spoken = spoken;
        if (this.#speaking.size > 0) spoken.pause();
      }
      for await (const event of services.answer(message, { signal: controller.signal, overrides: { thinking: false }, spoken: true })) {
        if (controller.signal.aborted) break;
        if (event.type === 'text') {
          written += event.delta;
          for (const sentence of cutter.push(event.delta)) say(sentence);
        } else if (event.type === 'citations') citations = event.citations;
        else if (event.type === 'error') {
          written += `${written === '' ? '' : '\n'}⚠️ ${event.message}`;
          say(event.message);
        }
      }
      const rest = cutter.flush();
      if (rest !== undefined && !controller.signal.aborted) say(rest);
      spoken?.end();
      if (written !== '' && !controller.signal.aborted) {
        if (denial) await this.#post(`💬 **${name}:** ${written}\n⚠️ Not spoken aloud: ${denial.message}`, citations);
        else if (this.#options.transcript) await this.#post(`🔊 **${name}:** ${written}`, citations);
      }
      await answer.playing;
    } catch (error) {
      const report = describeError(error).message;
      logger.warn({ err: error, report }, 'talk: answering failed');
      spoken?.stop();
      if (!controller.signal.aborted) await this.#post(`⚠️ ${room.displayName(userId)}: ${report}`);
    } finally {
      if (spoken && spoken.synthesized > 0) await this.#record(subject, { ...emptyUsage(), serviceCalls: spoken.synthesized });
      if (this.#answer === answer) this.#answer = undefined;
      this.#touch();
      this.#notifyPause();
    }
  }

  async #play(answer: Answer, spoken: SpokenAnswer): Promise<void> {
    await this.#options.otherSpeech?.ended();
    if (answer.controller.signal.aborted) {
      spoken.packets.destroy();
      return;
    }
    answer.onLink = true;
    await this.#options.link.play(spoken.packets);
  }

  #stopAnswer(): void {
    const answer = this.#answer;
    if (!answer) return;
    this.#answer = undefined;
    answer.controller.abort();
    answer.spoken?.stop();
    if (answer.onLink) this.#options.link.stopPlayback();
  }

  #resumeIfQuiet(): void {
    if (this.#speaking.size === 0 && this.#pendingTurns === 0) {
      this.#options.otherSpeech?.release();
      const spoken = this.#answer?.spoken;
      if (spoken?.paused) {
        spoken.resume();
        this.#options.logger.debug('talk: resumed after speech that was not a turn for Herald');
      }
    }
    this.#notifyPause();
  }

  #quiet(): boolean {
    return this.#ended || (this.#speaking.size === 0 && this.#pendingTurns === 0 && this.#answer === undefined);
  }

  #notifyPause(): void {
    if (!this.#quiet()) return;
    for (const resolve of this.#pauseWaiters.splice(0)) resolve();
  }

  #touch(): void {
    if (this.#ended) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.end(`nobody talked to me for ${humanDuration(this.#options.idleMs)}.`), this.#options.idleMs);
    this.#idleTimer.unref();
  }

  async #record(subject: QuotaSubject, usage: ReplyUsage): Promise<void> {
    if (usage.serviceCalls === 0) return;
    await this.#options.services.spending
      .record(subject, usage)
      .catch((error: unknown) => this.#options.logger.error({ err: error }, 'recording usage failed'));
  }

  async #post(text: string, citations?: readonly Citation[]): Promise<void> {
    await this.#options.room
      .post(text, citations)
      .catch((error: unknown) => this.#options.logger.warn({ err: error }, "talk: could not post in the voice channel's chat"));
  }
}
