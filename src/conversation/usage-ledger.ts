import type { Store } from '../store/store.ts';
import { dayKey } from './clock.ts';
import type { ReplyUsage } from './types.ts';

/** Counted per user and per guild/workspace, for today (in TZ) and in total. */
export const usageMetrics = [
  'replies',
  'serviceCalls',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'reasoningTokens',
  'cachedTokens',
  'imageTokens',
  'audioTokens',
  'audioSeconds',
  'webSearchCalls',
] as const;

export type UsageMetric = (typeof usageMetrics)[number];
export type UsageTotals = Record<UsageMetric, number>;

export type UsageSubject = { platform: string; userId: string } | { platform: string; workspaceId: string };

export interface UsageReport {
  /** `YYYY-MM-DD` in TZ. */
  day: string;
  today: UsageTotals;
  total: UsageTotals;
}

/** Daily counters outlive their day a little, so "yesterday" can still be read after midnight. */
const DAY_TTL_MS = 3 * 24 * 3600 * 1000;

function subjectId(subject: UsageSubject): string {
  return 'userId' in subject
    ? `${encodeURIComponent(subject.platform)}:user:${encodeURIComponent(subject.userId)}`
    : `${encodeURIComponent(subject.platform)}:guild:${encodeURIComponent(subject.workspaceId)}`;
}

export function dailyKey(subject: UsageSubject, day: string, metric: UsageMetric): string {
  return `usage:${subjectId(subject)}:day:${day}:${metric}`;
}

function totalKey(subject: UsageSubject, metric: UsageMetric): string {
  return `usage:${subjectId(subject)}:total:${metric}`;
}

export class UsageLedger {
  readonly #store: Store;
  readonly #timezone: string;

  constructor(store: Store, timezone: string) {
    this.#store = store;
    this.#timezone = timezone;
  }

  /** Adds one reply's usage to every subject's daily and total counters, in one store round trip. */
  async record(subjects: readonly UsageSubject[], usage: ReplyUsage, at: Date): Promise<void> {
    const day = dayKey(at, this.#timezone);
    const values: UsageTotals = { replies: 1, ...pick(usage) };
    const increments = subjects.flatMap((subject) =>
      usageMetrics
        .filter((metric) => values[metric] !== 0)
        .flatMap((metric) => [
          { key: dailyKey(subject, day, metric), n: values[metric], ttlMs: DAY_TTL_MS },
          { key: totalKey(subject, metric), n: values[metric] },
        ]),
    );
    await this.#store.incrementMany(increments);
  }

  async report(subject: UsageSubject, at: Date): Promise<UsageReport> {
    const day = dayKey(at, this.#timezone);
    const keys = [...usageMetrics.map((m) => dailyKey(subject, day, m)), ...usageMetrics.map((m) => totalKey(subject, m))];
    const values = await this.#store.readCounters(keys);
    const totals = (offset: number) => Object.fromEntries(usageMetrics.map((m, i) => [m, values[offset + i]!])) as UsageTotals;
    return { day, today: totals(0), total: totals(usageMetrics.length) };
  }

  /** Tokens used today, for the daily budget check. */
  async tokensToday(subject: UsageSubject, at: Date): Promise<number> {
    const [tokens] = await this.#store.readCounters([dailyKey(subject, dayKey(at, this.#timezone), 'totalTokens')]);
    return tokens!;
  }
}

function pick(usage: ReplyUsage): Omit<UsageTotals, 'replies'> {
  return {
    serviceCalls: usage.serviceCalls,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    reasoningTokens: usage.reasoningTokens,
    cachedTokens: usage.cachedTokens,
    imageTokens: usage.imageTokens,
    audioTokens: usage.audioTokens,
    audioSeconds: usage.audioSeconds,
    webSearchCalls: usage.webSearchCalls,
  };
}
