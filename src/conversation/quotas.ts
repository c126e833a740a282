import type { Config } from '../config/config.ts';
import type { Store } from '../store/store.ts';
import { humanDuration, nextMidnight } from './clock.ts';
import type { ReplyUsage } from './types.ts';
import { UsageLedger, type UsageSubject } from './usage-ledger.ts';

export interface QuotaDenial {
  code: 'rate_limited' | 'daily_budget';
  /** Polite, says which limit and when it resets. */
  message: string;
  retryAfterMs: number;
}

export interface UserLimits {
  userRequestsPerMinute: number;
  userDailyTokens: number;
}

export interface QuotaSubject {
  platform: string;
  userId: string;
  workspaceId?: string;
}

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * Per-user and per-guild/workspace limits, held in the store so every instance counts together:
 * requests per minute (token buckets: a full minute's worth may come as a burst, then one more each
 * 60/N s) and tokens per day (counted by the usage ledger, reset at midnight in TZ).
 */
export class QuotaGuard {
  readonly #store: Store;
  readonly #quotas: Config['quotas'];
  readonly #timezone: string;
  readonly #ledger: UsageLedger;

  constructor(store: Store, ledger: UsageLedger, quotas: Config['quotas'], timezone: string) {
    this.#store = store;
    this.#ledger = ledger;
    this.#quotas = quotas;
    this.#timezone = timezone;
  }

  /**
   * Null when the request may go ahead (its request is then counted), otherwise why not. `userLimits` are a
   * server's own (stricter) per-user limits; the operator's apply otherwise.
   */
  async admit(subject: QuotaSubject, now: Date, userLimits?: UserLimits): Promise<QuotaDenial | null> {
    const limits = { ...this.#quotas, ...userLimits };
    const budget = await this.#dailyBudget(subject, now, limits);
    if (budget) return budget;

    const user = await this.#store.takeTokens(`rate:${subject.platform}:user:${subject.userId}`, perMinute(limits.userRequestsPerMinute));
    if (!user.allowed) {
      return {
        code: 'rate_limited',
        message: `You've reached your limit of ${requests(limits.userRequestsPerMinute)} per minute — try again in ${humanDuration(user.retryAfterMs)}.`,
        retryAfterMs: user.retryAfterMs,
      };
    }
    if (subject.workspaceId !== undefined) {
      const guild = await this.#store.takeTokens(
        `rate:${subject.platform}:guild:${subject.workspaceId}`,
        perMinute(this.#quotas.guildRequestsPerMinute),
      );
      if (!guild.allowed) {
        return {
          code: 'rate_limited',
          message: `This server has reached its limit of ${requests(this.#quotas.guildRequestsPerMinute)} per minute — try again in ${humanDuration(guild.retryAfterMs)}.`,
          retryAfterMs: guild.retryAfterMs,
        };
      }
    }
    return null;
  }

  /** Null while the daily budgets have room, otherwise why not; counts no request (for a cost of one already admitted). */
  withinBudget(subject: QuotaSubject, now: Date, userLimits?: UserLimits): Promise<QuotaDenial | null> {
    return this.#dailyBudget(subject, now, { ...this.#quotas, ...userLimits });
  }

  async #dailyBudget(subject: QuotaSubject, now: Date, limits: Config['quotas']): Promise<QuotaDenial | null> {
    const resetsInMs = nextMidnight(now, this.#timezone).getTime() - now.getTime();
    const resets = `it resets at midnight (${this.#timezone}), in ${humanDuration(resetsInMs)}`;
    const userTokens = await this.#ledger.tokensToday({ platform: subject.platform, userId: subject.userId }, now);
    if (userTokens >= limits.userDailyTokens) {
      return {
        code: 'daily_budget',
        message: `You've used your daily budget of ${numberFormat.format(limits.userDailyTokens)} tokens — ${resets}.`,
        retryAfterMs: resetsInMs,
      };
    }
    if (subject.workspaceId !== undefined) {
      const guildTokens = await this.#ledger.tokensToday({ platform: subject.platform, workspaceId: subject.workspaceId }, now);
      if (guildTokens >= this.#quotas.guildDailyTokens) {
        return {
          code: 'daily_budget',
          message: `This server has used its daily budget of ${numberFormat.format(this.#quotas.guildDailyTokens)} tokens — ${resets}.`,
          retryAfterMs: resetsInMs,
        };
      }
    }
    return null;
  }
}

function perMinute(count: number) {
  return { capacity: count, refillPerSecond: count / 60 };
}

function requests(count: number): string {
  return `${numberFormat.format(count)} request${count === 1 ? '' : 's'}`;
}

/**
 * Work that costs outside a chat reply (speech from /say, narration) charged to the same budgets as chat: admitted
 * before it is queued, its usage recorded once it is done, so it counts in the limits and shows in /usage.
 */
export class SpendingGuard {
  readonly #guard: QuotaGuard;
  readonly #ledger: UsageLedger;
  readonly #now: () => Date;

  constructor(store: Store, config: Pick<Config, 'quotas' | 'timezone'>, now: () => Date = () => new Date()) {
    this.#ledger = new UsageLedger(store, config.timezone);
    this.#guard = new QuotaGuard(store, this.#ledger, config.quotas, config.timezone);
    this.#now = now;
  }

  admit(subject: QuotaSubject, userLimits?: UserLimits): Promise<QuotaDenial | null> {
    return this.#guard.admit(subject, this.#now(), userLimits);
  }

  /** Whether the daily budgets have room for a further cost of a request already admitted (its speech, say). */
  withinBudget(subject: QuotaSubject, userLimits?: UserLimits): Promise<QuotaDenial | null> {
    return this.#guard.withinBudget(subject, this.#now(), userLimits);
  }

  /** Records one request's usage for the user and their server, as a reply's is. */
  record(subject: QuotaSubject, usage: ReplyUsage): Promise<void> {
    const subjects: UsageSubject[] = [{ platform: subject.platform, userId: subject.userId }];
    if (subject.workspaceId !== undefined) subjects.push({ platform: subject.platform, workspaceId: subject.workspaceId });
    return this.#ledger.record(subjects, usage, this.#now());
  }
}
