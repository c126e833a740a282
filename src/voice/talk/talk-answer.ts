import type { QuotaSubject } from '../../conversation/quotas.ts';
import type { IncomingMessage, ReplyUsage } from '../../conversation/types.ts';
import { emptyUsage } from '../../conversation/usage-meter.ts';
import { describeError } from '../../errors.ts';
import type { Citation } from '../../service/types.ts';
import { SentenceCutter, spokenText } from './sentence-cutter.ts';
import { SpokenAnswer } from './spoken-answer.ts';
import type { TalkSessionOptions } from './talk-options.ts';

/** Where an answer goes besides the voice link; neither rejects. */
export interface AnswerOutlets {
  post(text: string, citations?: readonly Citation[]): Promise<void>;
  record(subject: QuotaSubject, usage: ReplyUsage): Promise<void>;
}

/**
 * Herald's answer to one turn: written by the engine and spoken sentence by sentence as it streams, once its
 * speech is admitted against the speaker's budget; past the budget it is posted in the channel's chat instead.
 * It can be paused (someone speaks over it), resumed, or stopped (a new turn for Herald).
 */
export class TalkAnswer {
  readonly #options: TalkSessionOptions;
  readonly #outlets: AnswerOutlets;
  readonly #controller = new AbortController();
  #spoken: SpokenAnswer | undefined;
  #playing: Promise<void> | undefined;
  /** Its packets have been handed to the link. */
  #onLink = false;
  #paused = false;

  constructor(options: TalkSessionOptions, outlets: AnswerOutlets) {
    this.#options = options;
    this.#outlets = outlets;
  }

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
    this.#spoken?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#spoken?.resume();
  }

  stop(): void {
    this.#controller.abort();
    this.#spoken?.stop();
    if (this.#onLink) this.#options.link.stopPlayback();
  }

  /** Answers `message` from `userId`; settles once it was spoken or posted, stopped, or failed (reported in the chat). */
  async run(userId: string, message: IncomingMessage): Promise<void> {
    const { services, platform, guildId, voice, opus, logger, limits, name, room } = this.#options;
    const subject: QuotaSubject = { platform, userId, workspaceId: guildId };
    const { signal } = this.#controller;
    const cutter = new SentenceCutter();
    let written = '';
    let citations: readonly Citation[] = [];
    try {
      // Speech is a cost of its own, checked against the budgets before any is synthesized; the turn's request was
      // already counted by its transcription, so it takes no per-minute request of its own.
      const denial = await services.spending.withinBudget(subject, limits);
      if (denial) logger.info({ userId, code: denial.code }, 'talk: answer written, not spoken: its budget is spent');
      else {
        this.#spoken = new SpokenAnswer((sentence, sentenceSignal) => services.synthesize({ text: sentence, voice, signal: sentenceSignal }), opus);
        if (this.#paused) this.#spoken.pause();
      }
      for await (const event of services.answer(message, { signal, overrides: { thinking: false }, spoken: true })) {
        if (signal.aborted) break;
        if (event.type === 'text') {
          written += event.delta;
          for (const sentence of cutter.push(event.delta)) this.#say(sentence);
        } else if (event.type === 'citations') citations = event.citations;
        else if (event.type === 'error') {
          written += `${written === '' ? '' : '\n'}⚠️ ${event.message}`;
          this.#say(event.message);
        }
      }
      const rest = cutter.flush();
      if (rest !== undefined && !signal.aborted) this.#say(rest);
      this.#spoken?.end();
      if (written !== '' && !signal.aborted) {
        if (denial) await this.#outlets.post(`💬 **${name}:** ${written}\n⚠️ Not spoken aloud: ${denial.message}`, citations);
        else if (this.#options.transcript) await this.#outlets.post(`🔊 **${name}:** ${written}`, citations);
      }
      await this.#playing;
    } catch (error) {
      const report = describeError(error).message;
      logger.warn({ err: error, report }, 'talk: answering failed');
      this.#spoken?.stop();
      if (!signal.aborted) await this.#outlets.post(`⚠️ ${room.displayName(userId)}: ${report}`);
    } finally {
      const synthesized = this.#spoken?.synthesized ?? 0;
      if (synthesized > 0) await this.#outlets.record(subject, { ...emptyUsage(), serviceCalls: synthesized });
    }
  }

  #say(sentence: string): void {
    const words = spokenText(sentence);
    const spoken = this.#spoken;
    if (words === '' || !spoken) return;
    spoken.add(words);
    this.#playing ??= this.#play(spoken);
  }

  async #play(spoken: SpokenAnswer): Promise<void> {
    await this.#options.otherSpeech?.ended();
    if (this.#controller.signal.aborted) {
      spoken.packets.destroy();
      return;
    }
    this.#onLink = true;
    await this.#options.link.play(spoken.packets);
  }
}
