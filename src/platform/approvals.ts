import { randomBytes } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { StoreBroadcast } from '../store/store-broadcast.ts';
import type { ApprovalOutcome, ApprovalRequest } from '../tools/types.ts';
import { untilAborted } from '../until-aborted.ts';
import { approvalArguments } from './approval-arguments.ts';
import type { ApprovalEnd, ApprovalMessage, ApprovalPress, ApprovalPressOutcome, ApprovalView } from './platform.ts';

/** 16 URL-safe characters: fits any platform's control id beside a prefix. */
const APPROVAL_ID = /^[A-Za-z0-9_-]{16}$/;
/** How long an approval's record outlives its expiry, so a late press is told it expired rather than nothing. */
const KEEP_AFTER_MS = 10 * 60_000;

export interface ApprovalAsk {
  request: ApprovalRequest;
  /** The only person who may answer it. */
  askerId: string;
  /** Posts the approval's message where the question is answered. */
  show(view: ApprovalView): Promise<ApprovalMessage>;
  /** The answer was withdrawn or stopped: the approval ends, cancelled, and the wait rejects with the reason. */
  signal: AbortSignal;
}

interface ApprovalRecord {
  askerId: string;
}

/**
 * Approvals of tool calls, wherever the platform delivers the press. Each is a record in the store (who may answer,
 * until when); the first answer (Approve, Deny, or the expiry) is claimed once across instances, and a press on an
 * instance other than the one waiting reaches it through the store's publish/subscribe. One per platform.
 */
export class Approvals {
  readonly #store: Store;
  readonly #platform: string;
  readonly #broadcast: StoreBroadcast;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  /** The approvals waiting here, by id. */
  readonly #waiting = new Map<string, (answer: ApprovalOutcome) => void>();

  constructor(store: Store, platform: string, timeoutMs: number, logger: Logger) {
    this.#store = store;
    this.#platform = platform;
    this.#broadcast = new StoreBroadcast(
      store,
      `approvals:${platform}`,
      (message) => this.#heard(message),
      logger,
      'listening for approvals pressed on other instances failed',
    );
    this.#timeoutMs = timeoutMs;
    this.#logger = logger;
  }

  /** Shows the approval and waits for the asker's answer, or for the timeout (then it is expired). */
  async ask({ request, askerId, show, signal }: ApprovalAsk): Promise<ApprovalOutcome> {
    signal.throwIfAborted();
    // Without hearing other instances a press elsewhere still counts, heard here at the expiry.
    await this.#broadcast.listen();
    const id = randomBytes(12).toString('base64url');
    const record: ApprovalRecord = { askerId };
    await this.#store.set(this.#key(id), record, this.#timeoutMs + KEEP_AFTER_MS);
    const answered = new Promise<ApprovalOutcome>((resolve) => this.#waiting.set(id, resolve));
    let message: ApprovalMessage | undefined;
    let end: ApprovalEnd = 'cancelled';
    try {
      try {
        message = await show({ id, title: request.title, args: approvalArguments(request.args) });
      } catch (error) {
        this.#logger.warn({ err: error, approval: id, tool: request.title }, 'an approval could not be shown; the call is not run');
        await this.#claim(id, 'expired');
        end = 'expired';
        return end;
      }
      end = await this.#outcome(id, answered, signal);
      this.#logger.info({ approval: id, tool: request.title, outcome: end }, 'approval settled');
      return end;
    } finally {
      this.#waiting.delete(id);
      await message?.settle(end).catch((error: unknown) => this.#logger.warn({ err: error, approval: id }, "showing an approval's end failed"));
    }
  }

  /** Approve or Deny pressed, on whichever instance: only the asker's first press before the expiry counts. */
  async pressed({ approvalId, answer, userId }: ApprovalPress): Promise<ApprovalPressOutcome> {
    if (!APPROVAL_ID.test(approvalId)) return 'gone';
    const record = await this.#store.get<ApprovalRecord>(this.#key(approvalId));
    if (!record) return 'gone';
    if (record.askerId !== userId) return 'refused';
    if (!(await this.#claim(approvalId, answer))) return 'gone';
    const here = this.#waiting.get(approvalId);
    if (here) here(answer);
    else await this.#broadcast.publish({ approval: approvalId, answer });
    this.#logger.info({ approval: approvalId, answer, here: here !== undefined }, 'approval answered');
    return 'done';
  }

  /** The press's answer, the expiry (unless a press claimed it first), or the signal's reason thrown. */
  async #outcome(id: string, answered: Promise<ApprovalOutcome>, signal: AbortSignal): Promise<ApprovalOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), this.#timeoutMs)));
    try {
      const first = await untilAborted(Promise.race([answered, expired]), signal);
      if (first !== 'expired' || (await this.#claim(id, 'expired'))) return first;
      // A press claimed it as time ran out: its answer counts.
      return (await this.#store.get<ApprovalOutcome>(this.#answerKey(id))) ?? 'expired';
    } catch (error) {
      await this.#claim(id, 'expired').catch(() => false);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #claim(id: string, answer: ApprovalOutcome): Promise<boolean> {
    return this.#store.setIfAbsent(this.#answerKey(id), answer, this.#timeoutMs + KEEP_AFTER_MS);
  }

  #heard(message: string): void {
    let heard: { approval?: unknown; answer?: unknown };
    try {
      heard = JSON.parse(message) as typeof heard;
    } catch {
      return;
    }
    const { approval, answer } = heard;
    if (typeof approval === 'string' && (answer === 'approved' || answer === 'denied')) this.#waiting.get(approval)?.(answer);
  }

  #key(id: string): string {
    return `approval:${this.#platform}:${id}`;
  }

  #answerKey(id: string): string {
    return `approval:${this.#platform}:${id}:answer`;
  }
}
