import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import type { AnsweredQuestions } from './answered-questions.ts';
import type { Question, Reviver } from './platform.ts';
import { HEARTBEAT_EXPIRY_MS, type Heartbeat, type ReplyHeartbeats } from './reply-heartbeats.ts';

/** How long an instance has to decide on taking over a reply, and to start its heartbeat. */
const TAKEOVER_LOCK_MS = 30_000;

/** A reply another instance left unfinished, now this instance's to finish. */
export interface Orphan {
  question: Question;
  /** The messages of the partial answer, which the new one replaces. */
  posted: string[];
  heartbeat: Heartbeat;
}

export interface OrphanedRepliesOptions {
  store: Store;
  platform: string;
  heartbeats: ReplyHeartbeats;
  answered: AnsweredQuestions;
  logger: Logger;
}

/**
 * Decides, once across the instances sharing the store (under a lock per question, everything checked again under
 * it), which instance finishes a reply left unfinished: one whose heartbeat expired, or a question delivered again
 * whose first claimant never began one.
 */
export class OrphanedReplies {
  readonly #options: OrphanedRepliesOptions;

  constructor(options: OrphanedRepliesOptions) {
    this.#options = options;
  }

  /**
   * The reply to finish here, with its heartbeat begun; undefined when it is not this instance's to finish. A question
   * gone meanwhile is not finished: its partial answer is closed through the Reviver.
   */
  async take(questionKey: string, reviver: Reviver, delivered?: Question): Promise<Orphan | undefined> {
    const { store, platform, logger } = this.#options;
    const lock = `takeover:${platform}:${questionKey}`;
    const token = await store.acquireLock(lock, TAKEOVER_LOCK_MS);
    if (!token) return undefined;
    try {
      return await this.#decide(questionKey, reviver, delivered);
    } finally {
      await store
        .releaseLock(lock, token)
        .catch((error: unknown) => logger.warn({ err: error, lock }, 'takeover lock release failed; it expires by itself'));
    }
  }

  async #decide(questionKey: string, reviver: Reviver, delivered: Question | undefined): Promise<Orphan | undefined> {
    const { heartbeats, answered, logger } = this.#options;
    const record = await heartbeats.record(questionKey);
    if (!record) {
      if (!delivered) {
        await heartbeats.forget(questionKey);
        return undefined;
      }
      // Its claimant may not have begun its heartbeat yet; one that has answered or failed left its mark.
      if (Date.now() - delivered.sentAt < HEARTBEAT_EXPIRY_MS || (await answered.get(questionKey))) return undefined;
    } else {
      if (!(await heartbeats.expired(questionKey))) return undefined;
      // Written to its end, its heartbeat outlived it (the store failed as it ended).
      if ((await answered.get(questionKey))?.versions) {
        await heartbeats.forget(questionKey);
        return undefined;
      }
    }
    const revival = record?.revival ?? delivered?.revival;
    let posted = record?.posted ?? [];
    let question: Question | undefined;
    try {
      question = delivered ?? (await reviver.question(revival));
      posted = [...posted, ...((await reviver.strays?.(revival, posted)) ?? [])];
    } catch (error) {
      // Left for a later sweep, here or elsewhere: the platform may answer then.
      logger.warn({ err: error, question: questionKey }, 'rebuilding a question left unanswered failed');
      return undefined;
    }
    if (!question) {
      logger.info({ question: questionKey, posted: posted.length }, 'a reply left unfinished is not finished: its question is gone');
      if (posted.length > 0)
        await reviver.interrupted(revival, posted).catch((error: unknown) => logger.warn({ err: error }, 'closing an unfinished answer failed'));
      await heartbeats.forget(questionKey);
      return undefined;
    }
    return { question, posted, heartbeat: await heartbeats.begin(questionKey, revival, posted) };
  }
}
