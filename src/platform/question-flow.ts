import { conversationKeyOf } from '../conversation/conversation-key.ts';
import { EDIT_WINDOW_MS, replacingReply } from '../conversation/replacement.ts';
import type { ConversationKey, HandleOptions, IncomingMessage, Replacement, ReplyStream } from '../conversation/types.ts';
import type { Core } from '../core.ts';
import { CancelledError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { MessageGoneError } from '../streaming/surface.ts';
import { AnsweredQuestions } from './answered-questions.ts';
import { DeletionWatch } from './deletion-watch.ts';
import { EventClaims } from './event-claims.ts';
import { refuseIfLate } from './late-question.ts';
import type { AnswerWriter, Question } from './platform.ts';
import type { PlatformHooks } from './platform-hooks.ts';

export interface QuestionFlowOptions {
  /** `discord`, `slack`: part of every key the flow stores. */
  platform: string;
  core: Pick<Core, 'engine' | 'store' | 'config'>;
  logger: Logger;
  hooks?: PlatformHooks;
}

/** How one answer can be stopped besides the shutdown deadline. */
interface AnswerAborts {
  /** The question deleted or superseded by an edit: the answer stops and goes. */
  withdraw: AbortController;
  /** The asker pressed stop on the platform. */
  cancel: AbortController;
  /** What the engine's request listens to. */
  signal: AbortSignal;
}

/**
 * The core's side of every platform: answers each question once, answers an edited question again in place of its
 * old answer, stops an answer whose question or message is deleted, and forgets from memory what a deleted question
 * brought into it. One per platform.
 */
export class QuestionFlow {
  readonly #platform: string;
  readonly #core: QuestionFlowOptions['core'];
  readonly #logger: Logger;
  readonly #hooks: PlatformHooks;
  readonly #claims: EventClaims;
  readonly #answered: AnsweredQuestions;
  readonly #deletions = new DeletionWatch();
  /** Answers being written here, by question key: an edit waits for the old one, a deletion for its end. */
  readonly #replying = new Map<string, Promise<void>>();

  constructor({ platform, core, logger, hooks = {} }: QuestionFlowOptions) {
    this.#platform = platform;
    this.#core = core;
    this.#logger = logger;
    this.#hooks = hooks;
    this.#claims = new EventClaims(core.store, logger);
    this.#answered = new AnsweredQuestions(core.store, platform, core.config.conversation.historyTtlSeconds * 1000);
  }

  /** True for the first delivery of a platform event (by its own id); false for a repeat. */
  firstDelivery(eventKey: string): Promise<boolean> {
    return this.#claims.claim(`${this.#platform}:event:${eventKey}`);
  }

  /** A new message addressed to Herald: answered once, however often it is delivered. `signal` cancels the answer. */
  async asked(question: Question, signal?: AbortSignal): Promise<void> {
    if (this.#draining) return;
    if (!(await this.#claims.claim(`${this.#platform}:question:${question.key}`))) return;
    await this.#run(question.key, this.#answer(question, signal));
  }

  /**
   * A question Herald answered, edited to say something else while still addressed to Herald: answered again in
   * place of the old answer when the engine agrees (the conversation's newest question, edited within the window).
   */
  async edited(question: Question, editedAt: number, signal?: AbortSignal): Promise<void> {
    if (this.#draining) return;
    const before = await this.#answered.get(question.key);
    if (!before || before.text === question.text) return;
    if (!(await this.#claims.claim(`${this.#platform}:edit:${question.key}:${editedAt}`))) return;
    const earlier = this.#replying.get(question.key);
    await this.#run(question.key, this.#answerEdit(question, editedAt, earlier, signal));
  }

  /**
   * Messages deleted on the platform, by key. An answer whose question or message it was stops (a deleted question
   * takes its answer down); a question's exchange is forgotten, with its text, files and the answer.
   */
  async deleted(messageKeys: readonly string[]): Promise<void> {
    this.#deletions.deleted(messageKeys);
    for (const key of messageKeys) {
      await this.#replying.get(key)?.catch(() => {});
      const answered = await this.#answered.get(key);
      if (!answered) continue;
      if (answered.conversation && answered.messageId !== undefined) {
        await this.#core.engine.forget(answered.conversation, answered.messageId);
        this.#logger.info({ question: key }, 'question deleted; forgot its exchange');
      }
      await this.#answered.delete(key);
    }
  }

  get #draining(): boolean {
    return this.#hooks.shutdown?.drainingSignal.aborted ?? false;
  }

  async #run(questionKey: string, reply: Promise<void>): Promise<void> {
    const { metrics, shutdown } = this.#hooks;
    this.#replying.set(questionKey, reply);
    const forget = () => {
      if (this.#replying.get(questionKey) === reply) this.#replying.delete(questionKey);
    };
    reply.then(forget, forget);
    metrics?.inflightReplies?.inc();
    try {
      await (shutdown ? shutdown.track(reply, `${this.#platform} reply`) : reply);
    } finally {
      metrics?.inflightReplies?.dec();
    }
  }

  #aborts(signal: AbortSignal | undefined): AnswerAborts {
    const withdraw = new AbortController();
    const cancel = new AbortController();
    const signals = [withdraw.signal, cancel.signal];
    if (signal) signals.push(signal);
    if (this.#hooks.shutdown) signals.push(this.#hooks.shutdown.deadlineSignal);
    return { withdraw, cancel, signal: AbortSignal.any(signals) };
  }

  async #answer(question: Question, signal: AbortSignal | undefined): Promise<void> {
    const aborts = this.#aborts(signal);
    const watched = this.#watch(question, aborts);
    const writer = this.#open(question, aborts, watched);
    try {
      await this.#answered.set(question.key, { text: question.text, answerKeys: [] });
      refuseIfLate(question.sentAt);
      const incoming = await this.#read(question, aborts.signal);
      const stream = this.#core.engine.handle(incoming, this.#handleOptions(question, aborts));
      await this.#show(question, incoming, stream, writer, aborts);
    } catch (error) {
      await this.#fail(question, writer, error, aborts);
    } finally {
      this.#deletions.unwatch(watched);
      await writer.close();
    }
  }

  /** Nothing is shown until the engine has replaced the old exchange; then the old answer goes and the new one is written. */
  async #answerEdit(question: Question, editedAt: number, earlier: Promise<void> | undefined, signal: AbortSignal | undefined): Promise<void> {
    // Declined before its files are read again; the engine decides the rest.
    if (editedAt - question.sentAt > EDIT_WINDOW_MS) {
      this.#logger.info({ question: question.key }, 'edited question not answered again: edited too late');
      return;
    }
    const aborts = this.#aborts(signal);
    const watched = this.#watch(question, aborts);
    try {
      let incoming: IncomingMessage;
      let stream: ReplyStream | undefined;
      try {
        incoming = await this.#read(question, aborts.signal);
        const replaces: Replacement = { messageId: incoming.messageId, sentAt: question.sentAt, editedAt };
        const options = { ...this.#handleOptions(question, aborts), replaces };
        stream = await replacingReply(this.#core.engine.handle(incoming, options));
      } catch (error) {
        if (aborts.withdraw.signal.aborted) this.#logger.info({ question: question.key }, 'edited question withdrawn before it was answered again');
        else this.#logger.warn({ err: error, question: question.key }, 'answering an edited question failed');
        return;
      }
      if (!stream) {
        this.#logger.info({ question: question.key }, 'edited question not answered again: not the newest, or edited too late');
        return;
      }
      await earlier?.catch(() => {});
      const writer = this.#open(question, aborts, watched);
      try {
        const old = await this.#answered.get(question.key);
        await writer.remove?.(old?.answerKeys ?? []);
        await this.#show(question, incoming, stream, writer, aborts);
      } catch (error) {
        await this.#fail(question, writer, error, aborts);
      } finally {
        await writer.close();
      }
    } finally {
      this.#deletions.unwatch(watched);
    }
  }

  /** Watches the question: deleting it while it is answered withdraws the answer. Returns the keys watched. */
  #watch(question: Question, aborts: AnswerAborts): string[] {
    this.#deletions.watch(question.key, () => aborts.withdraw.abort(new CancelledError('The question was deleted.')));
    return [question.key];
  }

  #open(question: Question, aborts: AnswerAborts, watched: string[]): AnswerWriter {
    return question.openAnswer({
      posted: (key) => {
        watched.push(key);
        this.#deletions.watch(key, () => aborts.withdraw.abort(new MessageGoneError(key)));
      },
      stoppedByAsker: () => aborts.cancel.abort(),
    });
  }

  async #read(question: Question, signal: AbortSignal): Promise<IncomingMessage> {
    const incoming = await question.read(signal);
    signal.throwIfAborted();
    return incoming;
  }

  #handleOptions(question: Question, aborts: AnswerAborts): HandleOptions {
    return {
      signal: aborts.signal,
      ...(question.workspace && { workspace: question.workspace }),
      onSuperseded: () => aborts.withdraw.abort(),
    };
  }

  /** Writes the answer and remembers its messages, for an edit of the question to replace and a deletion to forget. */
  async #show(question: Question, incoming: IncomingMessage, stream: ReplyStream, writer: AnswerWriter, aborts: AnswerAborts): Promise<void> {
    await this.#answered.set(question.key, { text: question.text, answerKeys: [], ...where(incoming) });
    const written = await writer.write(stream, aborts.withdraw.signal);
    if (written.stopped === 'aborted') {
      this.#logger.info(
        { question: question.key, removed: written.messageKeys.length },
        'question withdrawn while it was answered; stopped and removed the answer',
      );
      await writer
        .remove?.(written.messageKeys)
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'removing the answer to a withdrawn question failed'));
      return;
    }
    if (written.stopped === 'deleted')
      this.#logger.info({ question: question.key, messages: written.messageKeys }, 'reply deleted while it was being written; stopped answering');
    await this.#answered.set(question.key, { text: question.text, answerKeys: written.messageKeys, ...where(incoming) });
  }

  /** A failure is told to the asker, unless the question went away meanwhile. */
  async #fail(question: Question, writer: AnswerWriter, error: unknown, aborts: AnswerAborts): Promise<void> {
    if (aborts.withdraw.signal.aborted && !(aborts.withdraw.signal.reason instanceof MessageGoneError)) {
      this.#logger.info({ question: question.key }, 'question withdrawn before it was answered');
      return;
    }
    await writer.fail(error).catch((failure: unknown) => this.#logger.error({ err: failure }, 'could not tell the asker that the answer failed'));
  }
}

/** Where the exchange a question started is remembered, for a deletion of the question to forget it. */
function where(incoming: IncomingMessage): { conversation: ConversationKey; messageId: string } {
  return { conversation: conversationKeyOf(incoming), messageId: incoming.messageId };
}
