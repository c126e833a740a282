import { conversationKeyOf } from '../conversation/conversation-key.ts';
import { EDIT_WINDOW_MS, replacingReply } from '../conversation/replacement.ts';
import type { ConversationKey, HandleOptions, IncomingMessage, Replacement, ReplyStream } from '../conversation/types.ts';
import type { Core } from '../core.ts';
import { CancelledError } from '../errors.ts';
import { untilAborted } from '../until-aborted.ts';
import type { Logger } from '../log/logger.ts';
import { MessageGoneError } from '../streaming/surface.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts';
import { AnsweredQuestions, type AnsweredQuestion, type AnswerVersion } from './answered-questions.ts';
import { Approvals, type ApprovalAsk } from './approvals.ts';
import { stoppableReply } from './answer-stream.ts';
import { controlsOf, finishedControls, MAX_VERSIONS } from './answer-versions.ts';
import { DeletionWatch } from './deletion-watch.ts';
import { EventClaims } from './event-claims.ts';
import { refuseIfLate } from './late-question.ts';
import type {
  AnswerPress,
  AnswerWriter,
  ApprovalMessage,
  ApprovalPress,
  ApprovalPressOutcome,
  ApprovalView,
  PressOutcome,
  Question,
  Reviver,
} from './platform.ts';
import type { PlatformHooks } from './platform-hooks.ts';
import { OrphanedReplies, type Orphan } from './orphaned-replies.ts';
import { ReplyHeartbeats, type Heartbeat } from './reply-heartbeats.ts';
import { StopPresses } from './stop-presses.ts';

export interface QuestionFlowOptions {
  /** `discord`, `slack`: part of every key the flow stores. */
  platform: string;
  core: Pick<Core, 'engine' | 'store' | 'config'>;
  logger: Logger;
  hooks?: PlatformHooks;
}

/** What an answer written again builds on: the versions before it (Regenerate), or the answer it goes on from (Continue). */
interface Earlier {
  versions?: AnswerVersion[];
  continues?: AnsweredQuestion;
}

/** The steps of answering a question again in place of its answer (an edit, Regenerate, Continue, a takeover). */
interface AnswerInPlace {
  start(incoming: IncomingMessage): Promise<ReplyStream | undefined>;
  /** Not answered again: `error` when it failed, none when the engine declined. */
  declined(error?: unknown): Promise<void>;
  /** Settled before anything is shown. */
  ready?: Promise<unknown>;
  /** Takes down what the new answer replaces. */
  replace(writer: AnswerWriter): Promise<void>;
  earlier?: Earlier;
  /** A message of the new answer was posted. */
  posted?: (messageKey: string) => void;
}

/** How one answer can be stopped besides the shutdown deadline, and where it is written. */
interface AnswerAborts {
  /** The question deleted or superseded by an edit: the answer stops and goes. */
  withdraw: AbortController;
  /** The asker stopped it on the platform (Slack's own stop, Ctrl-C): the engine stops, what is shown stays. */
  cancel: AbortController;
  /** Herald's Stop was pressed: the reply ends where it is and what is shown is finished as it is. */
  stop: AbortController;
  /** What the engine's request listens to. */
  signal: AbortSignal;
  /** The answer's writer once it is open: approvals are posted through it. */
  writer: Promise<AnswerWriter>;
  opened(writer: AnswerWriter): void;
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
  readonly #stops: StopPresses;
  readonly #approvals: Approvals;
  readonly #heartbeats: ReplyHeartbeats;
  readonly #orphans: OrphanedReplies;
  #reviver: Reviver | undefined;

  constructor({ platform, core, logger, hooks = {} }: QuestionFlowOptions) {
    this.#platform = platform;
    this.#core = core;
    this.#logger = logger;
    this.#hooks = hooks;
    this.#claims = new EventClaims(core.store, logger);
    this.#answered = new AnsweredQuestions(core.store, platform, core.config.conversation.historyTtlSeconds * 1000);
    this.#stops = new StopPresses(core.store, platform, logger);
    this.#approvals = new Approvals(core.store, platform, core.config.conversation.approvalTimeoutMs, logger);
    this.#heartbeats = new ReplyHeartbeats(core.store, platform, logger);
    this.#orphans = new OrphanedReplies({ store: core.store, platform, heartbeats: this.#heartbeats, answered: this.#answered, logger });
  }

  /**
   * The platform can rebuild its questions: from now on this instance finishes, in place of the partial answer, each
   * reply another instance sharing the store stopped writing (its heartbeat expired: it died).
   */
  revivesWith(reviver: Reviver): void {
    this.#reviver = reviver;
    this.#heartbeats.sweep(async (questionKey) => void (await this.#takeOver(questionKey)));
  }

  /** Beats and sweeps no more: the platform stopped. */
  close(): void {
    this.#heartbeats.close();
  }

  /** True for the first delivery of a platform event (by its own id); false for a repeat. */
  firstDelivery(eventKey: string): Promise<boolean> {
    return this.#claims.claim(`${this.#platform}:event:${eventKey}`);
  }

  /**
   * A new message addressed to Herald: answered once, however often it is delivered. `signal` cancels the answer.
   * `redelivered`: the platform delivered it again after its first delivery was taken (Slack retries what it could
   * not deliver), perhaps by an instance that died on it: answered only when nobody else is to answer it.
   */
  async asked(question: Question, signal?: AbortSignal, redelivered = false): Promise<void> {
    if (this.#draining) return;
    if (redelivered) {
      if (!this.#replying.has(question.key)) await this.#takeOver(question.key, question, signal);
      return;
    }
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

  /**
   * A control pressed on an answer, on whichever instance the platform delivered it to. Only the asker, or someone
   * the platform lets moderate there, may press. Resolves once the press is decided: Regenerate and Continue go on
   * writing after that (tracked like any answer); Stop reaches the instance writing the answer through the store.
   */
  async pressed(press: AnswerPress): Promise<PressOutcome> {
    const answered = await this.#answered.get(press.questionKey);
    if (answered?.askerId === undefined) return 'gone';
    if (press.userId !== answered.askerId && !press.mayModerate) return 'refused';
    switch (press.action) {
      case 'stop':
        return this.#stop(press.questionKey, answered);
      case 'previous':
      case 'next':
        return this.#flip(press, answered);
      case 'regenerate':
      case 'continue':
        return this.#answerAgainLater(press, answered);
    }
  }

  /**
   * Asks for an approval outside an answer to a question (a command's, a message action's), shown where `ask.show` puts
   * it; pressed like any other, on whichever instance.
   */
  approve(ask: ApprovalAsk): Promise<ApprovalOutcome> {
    return this.#approvals.ask(ask);
  }

  /** Approve or Deny pressed on an approval, on whichever instance: it reaches the call waiting for it. */
  approvalPressed(press: ApprovalPress): Promise<ApprovalPressOutcome> {
    return this.#approvals.pressed(press);
  }

  get #draining(): boolean {
    return this.#hooks.shutdown?.drainingSignal.aborted ?? false;
  }

  async #stop(questionKey: string, answered: AnsweredQuestion): Promise<PressOutcome> {
    if (answered.versions) return 'gone';
    await this.#stops.stop(questionKey);
    return 'done';
  }

  /** ◀ ▶: every message of the answer is rewritten to show the version before or after. */
  async #flip(press: AnswerPress, answered: AnsweredQuestion): Promise<PressOutcome> {
    const versions = answered.versions ?? [];
    const shown = (answered.shown ?? versions.length - 1) + (press.action === 'next' ? 1 : -1);
    const version = versions[shown];
    if (!version || this.#replying.has(press.questionKey)) return 'gone';
    // Remembered before it shows, so a press that follows what it shows builds on it.
    await this.#answered.set(press.questionKey, { ...answered, shown });
    const answerKeys = await press.editor.rewrite(answered.answerKeys, version, finishedControls(versions, shown));
    if (answerKeys.join() !== answered.answerKeys.join()) await this.#answered.set(press.questionKey, { ...answered, answerKeys, shown });
    return 'done';
  }

  /** Regenerate and Continue: decided now, once across instances; the answer is written after the press is answered. */
  async #answerAgainLater(press: AnswerPress, answered: AnsweredQuestion): Promise<PressOutcome> {
    const { versions, shown = 0, continued = 0 } = answered;
    if (this.#draining || !versions || (press.action === 'continue' && !controlsOf(answered).continue)) return 'gone';
    // A second press while the first is answered (here, or on another instance) is the same request.
    if (this.#replying.has(press.questionKey)) return 'done';
    if (!answered.stopped && !(await this.#isNewest(answered))) return 'superseded';
    if (!(await this.#claims.claim(`${this.#platform}:${press.action}:${press.questionKey}:${versions.length}:${continued}`))) return 'done';
    void this.#run(press.questionKey, this.#answerAgain(press, answered, versions, shown));
    return 'done';
  }

  /** Whether the answer is still its conversation's newest exchange (its last continuation, if it was continued). */
  async #isNewest({ conversation, messageId, continued }: AnsweredQuestion): Promise<boolean> {
    if (!conversation || messageId === undefined) return false;
    return this.#core.engine.startedNewest(conversation, continued ? continuationId(messageId, continued) : messageId);
  }

  async #answerAgain(press: AnswerPress, answered: AnsweredQuestion, versions: AnswerVersion[], shown: number): Promise<void> {
    const { questionKey, editor } = press;
    const restore = () =>
      editor
        .showControls(answered.answerKeys, controlsOf(answered))
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'restoring controls failed'));
    // The old controls go at once: the press shows it was taken while the answer is prepared.
    await editor.showControls(answered.answerKeys, {}).catch((error: unknown) => this.#logger.warn({ err: error }, 'taking controls off failed'));
    const question = await press.question().catch((error: unknown) => {
      this.#logger.warn({ err: error, question: questionKey }, 'reading a question again failed');
      return undefined;
    });
    if (!question) {
      this.#logger.info({ question: questionKey }, `${press.action} pressed on an answer whose question is gone`);
      return;
    }
    const aborts = this.#aborts(undefined);
    await this.#answerInPlace(question, aborts, {
      start: (incoming) => this.#againStream(press, answered, question, incoming, aborts),
      declined: async (error) => {
        if (error !== undefined) this.#logger.warn({ err: error, question: questionKey }, `answering a question again (${press.action}) failed`);
        else this.#logger.info({ question: questionKey }, "regenerate pressed on an answer that is no longer the conversation's newest");
        await restore();
      },
      replace: async (writer) => {
        if (press.action === 'regenerate') await writer.remove?.(answered.answerKeys);
      },
      earlier: press.action === 'regenerate' ? { versions } : { versions: versions.slice(0, shown + 1), continues: answered },
    });
  }

  /**
   * Regenerate replaces the question's exchange in memory, the way an edit does (an answer stopped before its end
   * never entered it, so it is simply asked again); Continue asks "continue" in the same conversation.
   */
  async #againStream(
    press: AnswerPress,
    answered: AnsweredQuestion,
    question: Question,
    incoming: IncomingMessage,
    aborts: AnswerAborts,
  ): Promise<ReplyStream | undefined> {
    const options = this.#handleOptions(question, incoming, aborts);
    if (press.action === 'continue') return this.#core.engine.handle(continuation(incoming, (answered.continued ?? 0) + 1), options);
    if (answered.stopped) return this.#core.engine.handle(incoming, options);
    const now = Date.now();
    return replacingReply(
      this.#core.engine.handle(incoming, { ...options, replaces: { messageId: incoming.messageId, sentAt: now, editedAt: now } }),
    );
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
    let opened!: (writer: AnswerWriter) => void;
    const writer = new Promise<AnswerWriter>((resolve) => (opened = resolve));
    // Stop is not among them: ending the reply stream cancels the engine's request.
    return { withdraw, cancel, stop: new AbortController(), signal: AbortSignal.any(signals), writer, opened };
  }

  async #answer(question: Question, signal: AbortSignal | undefined): Promise<void> {
    const aborts = this.#aborts(signal);
    const heartbeat = await this.#beat(question);
    const watched = this.#watch(question, aborts);
    const writer = this.#open(question, aborts, watched, heartbeat?.posted);
    try {
      await this.#answered.set(question.key, { text: question.text, answerKeys: [] });
      refuseIfLate(question.sentAt);
      const incoming = await this.#read(question, aborts.signal);
      const stream = this.#core.engine.handle(incoming, this.#handleOptions(question, incoming, aborts));
      await this.#show(question, incoming, stream, writer, aborts);
    } catch (error) {
      await this.#fail(question, writer, error, aborts);
    } finally {
      this.#deletions.unwatch(watched);
      await writer.close();
      await this.#ended(question.key, heartbeat);
    }
  }

  /** The heartbeat of a reply that another instance could finish; none where it could not, or the store failed. */
  async #beat(question: Question): Promise<Heartbeat | undefined> {
    if (question.revival === undefined || !this.#reviver) return undefined;
    return this.#heartbeats.begin(question.key, question.revival).catch((error: unknown) => {
      this.#logger.warn({ err: error, question: question.key }, 'reply heartbeat not started; nobody can finish it should this instance die');
      return undefined;
    });
  }

  async #ended(questionKey: string, heartbeat: Heartbeat | undefined): Promise<void> {
    await heartbeat?.end().catch((error: unknown) => this.#logger.warn({ err: error, question: questionKey }, 'reply heartbeat not removed'));
  }

  /**
   * A reply whose heartbeat expired, or a question delivered again whose first claimant never started one: one
   * instance, under a store lock, rebuilds the question (the delivery's own, or through the platform's Reviver)
   * and answers it again in place of the partial answer. A delivery waits for that answer; a sweep only decides.
   */
  async #takeOver(questionKey: string, delivered?: Question, signal?: AbortSignal): Promise<void> {
    const reviver = this.#reviver;
    if (!reviver || this.#draining) return;
    const orphan = await this.#orphans.take(questionKey, reviver, delivered);
    if (!orphan) return;
    this.#logger.info(
      { question: questionKey, posted: orphan.posted.length, redelivered: delivered !== undefined },
      'finishing a reply another instance left unfinished',
    );
    this.#hooks.metrics?.repliesTakenOver?.inc({ platform: this.#platform });
    const run = this.#run(questionKey, this.#answerTakenOver(orphan, signal));
    // A sweep decides and goes on; a delivery waits for its answer.
    if (delivered) await run;
  }

  /** The question answered again from the start; the partial answer goes once the new one is ready to be written. */
  async #answerTakenOver({ question, posted, heartbeat }: Orphan, signal: AbortSignal | undefined): Promise<void> {
    const aborts = this.#aborts(signal);
    try {
      await this.#answerInPlace(question, aborts, {
        start: async (incoming) => this.#core.engine.handle(incoming, this.#handleOptions(question, incoming, aborts)),
        declined: async (error) => {
          const writer = this.#open(question, aborts, [], heartbeat.posted);
          await writer.remove?.(posted).catch((failure: unknown) => this.#logger.warn({ err: failure }, 'removing an unfinished answer failed'));
          await this.#fail(question, writer, error, aborts);
          await writer.close();
        },
        replace: async (writer) => {
          await writer.remove?.(posted);
        },
        posted: heartbeat.posted,
      });
    } finally {
      await this.#ended(question.key, heartbeat);
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
    await this.#answerInPlace(question, aborts, {
      start: (incoming) => {
        const replaces: Replacement = { messageId: incoming.messageId, sentAt: question.sentAt, editedAt };
        return replacingReply(this.#core.engine.handle(incoming, { ...this.#handleOptions(question, incoming, aborts), replaces }));
      },
      declined: async (error) => {
        if (error === undefined)
          this.#logger.info({ question: question.key }, 'edited question not answered again: not the newest, or edited too late');
        else if (aborts.withdraw.signal.aborted)
          this.#logger.info({ question: question.key }, 'edited question withdrawn before it was answered again');
        else this.#logger.warn({ err: error, question: question.key }, 'answering an edited question failed');
      },
      ready: earlier?.catch(() => {}),
      replace: async (writer) => {
        const old = await this.#answered.get(question.key);
        await writer.remove?.(old?.answerKeys ?? []);
      },
    });
  }

  /**
   * Answers a question again in place of its answer. Nothing is shown until the engine agreed (`start` gives its
   * stream; undefined: declined); then, once `ready`, what the new answer replaces goes and the new answer is written.
   */
  async #answerInPlace(question: Question, aborts: AnswerAborts, steps: AnswerInPlace): Promise<void> {
    const watched = this.#watch(question, aborts);
    try {
      let incoming: IncomingMessage;
      let stream: ReplyStream | undefined;
      try {
        incoming = await this.#read(question, aborts.signal);
        stream = await steps.start(incoming);
      } catch (error) {
        await steps.declined(error);
        return;
      }
      if (!stream) {
        await steps.declined();
        return;
      }
      await steps.ready;
      const writer = this.#open(question, aborts, watched, steps.posted);
      try {
        await steps.replace(writer);
        await this.#show(question, incoming, stream, writer, aborts, steps.earlier);
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

  #open(question: Question, aborts: AnswerAborts, watched: string[], posted?: (key: string) => void): AnswerWriter {
    const writer = question.openAnswer({
      posted: (key) => {
        posted?.(key);
        watched.push(key);
        this.#deletions.watch(key, () => aborts.withdraw.abort(new MessageGoneError(key)));
      },
      stoppedByAsker: () => aborts.cancel.abort(),
    });
    aborts.opened(writer);
    return writer;
  }

  async #read(question: Question, signal: AbortSignal): Promise<IncomingMessage> {
    const incoming = await question.read(signal);
    signal.throwIfAborted();
    return incoming;
  }

  #handleOptions(question: Question, incoming: IncomingMessage, aborts: AnswerAborts): HandleOptions {
    return {
      signal: aborts.signal,
      ...(question.workspace && { workspace: question.workspace }),
      onSuperseded: () => aborts.withdraw.abort(),
      approve: (request, signal) => this.#approve(request, incoming, aborts, signal),
    };
  }

  /**
   * Asks the asker to approve a tool call where the answer is written, once it is open. A question withdrawn meanwhile
   * (deleted, or edited) takes its approval down with it, as it does its answer.
   */
  async #approve(request: ApprovalRequest, incoming: IncomingMessage, aborts: AnswerAborts, signal: AbortSignal): Promise<ApprovalOutcome> {
    const writer = await untilAborted(aborts.writer, signal);
    const ask = writer.askApproval?.bind(writer);
    // A writer that cannot show an approval leaves the call unapproved.
    if (!ask) return 'denied';
    const withdrawn = () => aborts.withdraw.signal.aborted && !(aborts.withdraw.signal.reason instanceof MessageGoneError);
    const show = async (view: ApprovalView): Promise<ApprovalMessage> => {
      const shown = await ask(view);
      return { settle: (end) => (withdrawn() && shown.remove ? shown.remove() : shown.settle(end)) };
    };
    return this.#approvals.ask({ request, askerId: incoming.author.id, show, signal });
  }

  /**
   * Writes the answer with a Stop while it is written, then remembers its messages and its version (for an edit of
   * the question to replace, a deletion to forget, and the controls), and shows the controls of a written answer.
   */
  async #show(
    question: Question,
    incoming: IncomingMessage,
    stream: ReplyStream,
    writer: AnswerWriter,
    aborts: AnswerAborts,
    earlier: Earlier = {},
  ): Promise<void> {
    const asked = { text: question.text, ...where(incoming), askerId: incoming.author.id };
    await this.#answered.set(question.key, { ...asked, answerKeys: [] });
    await this.#stops.listen();
    let finishReason: string | undefined;
    const reply = stoppableReply(stream, aborts.stop.signal, (done) => (finishReason = done.finishReason));
    const doneWriting = this.#stops.writing(question.key, aborts.stop);
    const written = await writer.write(reply, aborts.withdraw.signal, { stop: true }).finally(doneWriting);
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
    const before = earlier.continues;
    const answerKeys = [...(before?.answerKeys ?? []), ...written.messageKeys];
    if (written.stopped === 'deleted') {
      this.#logger.info({ question: question.key, messages: written.messageKeys }, 'reply deleted while it was being written; stopped answering');
      await this.#answered.set(question.key, { ...asked, answerKeys });
      return;
    }
    const stopped = aborts.stop.signal.aborted || aborts.cancel.signal.aborted;
    const text = written.text ?? '';
    const citations = [...(before ? (earlier.versions?.at(-1)?.citations ?? []) : []), ...(written.citations ?? [])];
    const version: AnswerVersion = {
      text: before ? `${earlier.versions?.at(-1)?.text ?? ''}\n\n${text}` : text,
      ...(citations.length > 0 && { citations }),
      cut: !stopped && finishReason !== undefined && finishReason !== 'stop',
    };
    const kept = before ? (earlier.versions ?? []).slice(0, -1) : (earlier.versions ?? []);
    const versions = [...kept, version].slice(-MAX_VERSIONS);
    const shown = versions.length - 1;
    await this.#answered.set(question.key, {
      ...asked,
      answerKeys,
      versions,
      shown,
      ...((before ? before.stopped : stopped) && { stopped: true }),
      ...(before && { continued: (before.continued ?? 0) + 1 }),
    });
    await writer
      .showControls?.(answerKeys, finishedControls(versions, shown))
      .catch((error: unknown) => this.#logger.warn({ err: error }, "showing an answer's controls failed"));
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

/** "continue", asked in the question's conversation by its asker, remembered as an exchange of its own. */
function continuation(incoming: IncomingMessage, count: number): IncomingMessage {
  const { platform, workspaceId, channelId, threadId, author, isDirect } = incoming;
  return {
    platform,
    ...(workspaceId !== undefined && { workspaceId }),
    channelId,
    ...(threadId !== undefined && { threadId }),
    messageId: continuationId(incoming.messageId, count),
    author,
    text: 'continue',
    isDirect,
  };
}

function continuationId(messageId: string, count: number): string {
  return `${messageId}:continue:${count}`;
}
