import type { QuotaSubject } from '../../conversation/quotas.ts';
import type { IncomingMessage, ReplyUsage } from '../../conversation/types.ts';
import { humanDuration } from '../../conversation/clock.ts';
import { addUsage, emptyUsage } from '../../conversation/usage-meter.ts';
import { describeError } from '../../errors.ts';
import type { Citation } from '../../service/types.ts';
import { HeardTurns } from './heard-turns.ts';
import { TalkAnswer } from './talk-answer.ts';
import type { TalkSessionOptions } from './talk-options.ts';
import { startsWithName } from './voice-name.ts';

/**
 * A spoken conversation in one voice channel: each speaker's audio goes through voice-activity detection into
 * turns; a turn for Herald (its name said first when others are present) is transcribed, answered through the
 * engine in the session's one conversation, and spoken sentence by sentence as the answer streams. Anyone
 * speaking over Herald pauses it (and any /say or narration playing); it resumes when that was not a turn for
 * it, and a new answer replaces the one going on when it was.
 */
export class TalkSession {
  readonly #options: TalkSessionOptions;
  readonly #heard: HeardTurns;
  /** Speakers whose speech is going on: Herald holds its answer meanwhile. */
  readonly #speaking = new Set<string>();
  readonly #threadId = `talk-${Date.now().toString(36)}`;
  readonly #pauseWaiters: (() => void)[] = [];
  #turns: Promise<void> = Promise.resolve();
  #pendingTurns = 0;
  #turnCount = 0;
  #answer: TalkAnswer | undefined;
  #unlisten: (() => void) | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(options: TalkSessionOptions) {
    this.#options = options;
    this.#heard = new HeardTurns(options.services.activity, options.clock ?? performance.now.bind(performance), {
      speech: (userId) => this.#speechStarted(userId),
      turnStarted: () => this.#touch(),
      turn: (userId, wav) => this.#turnHeard(userId, wav),
      speechEnded: (userId) => {
        this.#speaking.delete(userId);
        this.#resumeIfQuiet();
      },
    });
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
    this.#unlisten = link.listen((audio) => {
      if (!this.#ended) this.#heard.heard(audio);
    });
    this.#heard.start();
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
    this.#heard.stop();
    clearTimeout(this.#idleTimer);
    this.#stopAnswer();
    this.#speaking.clear();
    this.#options.otherSpeech?.release();
    this.#notifyPause();
    this.#options.logger.info({ reason, turns: this.#turnCount }, 'talk: session ended');
    void this.#post(`🔇 Stopped listening: ${reason}`);
    this.#options.onEnd(reason);
  }

  #speechStarted(userId: string): void {
    this.#speaking.add(userId);
    this.#options.otherSpeech?.hold();
    if (this.#answer && !this.#answer.paused) {
      this.#answer.pause();
      this.#options.logger.debug({ userId }, 'talk: someone speaks over the answer; paused');
    }
  }

  #turnHeard(userId: string, wav: Buffer): void {
    this.#pendingTurns++;
    this.#turns = this.#turns
      .then(() => this.#takeTurn(userId, wav))
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
    if (people >= 2 && !startsWithName(text, name)) {
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
    const { platform, guildId, link, room } = this.#options;
    const answer = new TalkAnswer(this.#options, {
      post: (posted, citations) => this.#post(posted, citations),
      record: (subject, usage) => this.#record(subject, usage),
    });
    this.#answer = answer;
    if (this.#speaking.size > 0) answer.pause();
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
    await answer.run(userId, message);
    if (this.#answer === answer) this.#answer = undefined;
    this.#touch();
    this.#notifyPause();
  }

  #stopAnswer(): void {
    const answer = this.#answer;
    this.#answer = undefined;
    answer?.stop();
  }

  #resumeIfQuiet(): void {
    if (this.#speaking.size === 0 && this.#pendingTurns === 0) {
      this.#options.otherSpeech?.release();
      if (this.#answer?.paused) {
        this.#answer.resume();
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
