import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { ConversationLocks } from './conversation-lock.ts';
import type { QuotaDenial, QuotaGuard } from './quotas.ts';
import type { ResolvedSettings, SettingsStore } from './settings.ts';
import type { TurnContext } from './turn-context.ts';
import type { UsageLedger, UsageSubject } from './usage-ledger.ts';

export interface AdmissionDeps {
  config: Config;
  logger: Logger;
  now: () => Date;
  settings: SettingsStore;
  quotas: QuotaGuard;
  locks: ConversationLocks;
  ledger: UsageLedger;
}

/** What a turn runs with once it holds its conversation's lock. */
export interface Admitted {
  settings: ResolvedSettings;
  /** Set when a quota refused the turn: only an edit still runs then, to take its old exchange away. */
  denial: QuotaDenial | null;
}

/**
 * Lets a turn in: its place in the conversation's queue, the settings in force, the quotas, then the
 * conversation lock; afterwards, the usage it spent is recorded against the user and the server.
 */
export class Admission {
  readonly #deps: AdmissionDeps;

  constructor(deps: AdmissionDeps) {
    this.#deps = deps;
  }

  /** Runs `body` under the conversation's lock, unless a quota refuses a new question (the refusal is emitted). */
  async run(turn: TurnContext, body: (admitted: Admitted) => Promise<void>): Promise<void> {
    const { config, logger, now, settings, quotas, locks } = this.#deps;
    const { message, options } = turn;
    // Joined before any await, so the order of handle() calls is the order of answers.
    const ticket = locks.enqueue(turn.conversation);
    let resolved: ResolvedSettings;
    let denial: QuotaDenial | null;
    try {
      resolved = await settings.resolve(turn.key, config, options.overrides);
      const subject = { platform: message.platform, userId: message.author.id, workspaceId: message.workspaceId };
      denial = await quotas.admit(subject, now(), resolved.quotas);
    } catch (error) {
      ticket.cancel();
      throw error;
    }
    if (denial && !options.replaces) {
      ticket.cancel();
      emitDenial(turn, denial);
      return;
    }
    const lease = await ticket.take({
      signal: turn.signal,
      onWait: () => turn.emit({ type: 'status', phase: 'queued', text: 'waiting for the previous reply…' }),
    });
    try {
      await body({ settings: resolved, denial });
      if (lease.lost) logger.warn({ conversation: turn.conversation }, 'reply finished after its conversation lock expired');
    } finally {
      await lease.release();
      await this.#record(turn);
    }
  }

  /** Runs `work` alone in the conversation, after any reply in progress there. */
  async exclusive<T>(conversation: string, work: () => Promise<T>): Promise<T> {
    const lease = await this.#deps.locks.enqueue(conversation).take();
    try {
      return await work();
    } finally {
      await lease.release();
    }
  }

  async #record(turn: TurnContext): Promise<void> {
    if (turn.usage.serviceCalls === 0) return;
    const { platform, author, workspaceId } = turn.message;
    const subjects: UsageSubject[] = [{ platform, userId: author.id }];
    if (workspaceId !== undefined) subjects.push({ platform, workspaceId });
    await this.#deps.ledger
      .record(subjects, turn.usage, this.#deps.now())
      .catch((error: unknown) => this.#deps.logger.error({ err: error }, 'recording usage failed'));
  }
}

export function emitDenial(turn: TurnContext, denial: QuotaDenial): void {
  turn.emit({ type: 'error', code: denial.code, message: denial.message, retryAfterMs: denial.retryAfterMs });
}
