import { webApi } from '@slack/bolt';
import type { Logger } from '../../src/log/logger.ts';
import { RateBudget } from './rate-budget.ts';

export type WebClient = webApi.WebClient;

/** The `error` of a Web API call Slack answered with {ok: false}, `http_<status>` for other statuses, else undefined. */
export function slackErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { data, statusCode } = error as { data?: { error?: unknown }; statusCode?: unknown };
  if (typeof data?.error === 'string') return data.error;
  return typeof statusCode === 'number' ? `http_${statusCode}` : undefined;
}

export interface SlackApiOptions {
  botToken: string;
  /** The Web API base, e.g. https://slack.com/api/ (GovSlack: https://slack-gov.com/api/). */
  apiUrl?: string;
  logger: Logger;
  budget?: RateBudget;
  /** Called when Slack answered 429 anyway (another process on the same workspace, a changed limit). */
  onRateLimited?: (method: string) => void;
  retryConfig?: webApi.RetryOptions;
}

/** The client's own retries cover lost connections and 5xx; a reply should fail in seconds, not minutes. */
const RETRIES: webApi.RetryOptions = { retries: 3, factor: 2, minTimeout: 200, maxTimeout: 2000 };

/**
 * The Web API as Herald uses it: one client with the bot token, every call first taking its place in the
 * rate budget so that replies wait their turn instead of being refused.
 */
export class SlackApi {
  readonly client: WebClient;
  readonly budget: RateBudget;
  readonly botToken: string;
  readonly apiUrl: string;

  constructor(options: SlackApiOptions) {
    this.botToken = options.botToken;
    this.apiUrl = options.apiUrl ?? 'https://slack.com/api/';
    this.budget = options.budget ?? new RateBudget();
    this.client = new webApi.WebClient(options.botToken, {
      slackApiUrl: this.apiUrl,
      logger: boltLogger(options.logger),
      retryConfig: options.retryConfig ?? RETRIES,
    });
    this.client.on(webApi.WebClientEvent.RATE_LIMITED, (_retrySec: number, { url }: { url: string }) => {
      const method = url.slice(url.lastIndexOf('/') + 1);
      options.logger.warn({ method }, 'Slack rate-limited a call');
      options.onRateLimited?.(method);
    });
  }

  /** Runs a Web API call once the budget allows `method` (per channel for chat.postMessage). */
  async call<T>(method: string, channel: string | undefined, run: (client: WebClient) => Promise<T>): Promise<T> {
    await this.budget.take(method, channel);
    return run(this.client);
  }
}

/** @slack/logger's interface over pino, so Bolt and the Web API client log with Herald's logger. */
export function boltLogger(logger: Logger): webApi.Logger {
  let level = webApi.LogLevel.INFO;
  const child = logger.child({ component: 'slack' });
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg: unknown[]) => child.debug(text(msg)),
    info: (...msg: unknown[]) => child.info(text(msg)),
    warn: (...msg: unknown[]) => child.warn(text(msg)),
    error: (...msg: unknown[]) => child.error(text(msg)),
    setLevel: (next: webApi.LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
