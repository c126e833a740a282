/**
 * Slack → app deliveries over HTTP: Events API callbacks (JSON), slash commands and interactions
 * (form-encoded), each signed with the app's signing secret exactly as Slack signs them. Slack waits three
 * seconds for a 2xx; the fake records the status and how long the app took to answer.
 *
 * Slack retries a failed Events API delivery (no 2xx within 3 s, a refused connection, a non-2xx answer) up to
 * three times: nearly immediately, after one minute, after five, each with X-Slack-Retry-Num and
 * X-Slack-Retry-Reason, unless the app answered with X-Slack-No-Retry: 1. Commands and interactions are never
 * retried. The fake does so when `retries` is set.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventCallback } from './event-builders.ts';
import type { ResponseUrls } from './response-urls.ts';
import { signedHeaders } from './signing.ts';
import { slashCommandFields, type SlashCommandInput } from './slash-command.ts';
import type { SigningOptions } from './signing.ts';
import type { Json, Workspace } from './state.ts';

export const SLACK_USER_AGENT = 'Slackbot 1.0 (+https://api.slack.com/robots)';

export interface HttpDelivery {
  kind: 'event' | 'slash_command' | 'interactive' | 'url_verification';
  eventId?: string;
  /** What was sent: the envelope (events), the form fields (commands), the interaction payload. */
  payload: Json;
  body: string;
  headers: Record<string, string>;
  /** The app's HTTP status; undefined when it did not answer within the timeout or the request failed. */
  status?: number;
  responseBody: string;
  responseHeaders: Record<string, string>;
  /** Milliseconds until the app's response headers arrived (or until giving up). */
  ackMs: number;
  timedOut: boolean;
  error?: string;
  /** The system error code behind a failed request (ECONNREFUSED, ECONNRESET …). */
  errorCode?: string;
  at: number;
}

/** Slack's waits before its three retries of an event. */
const SLACK_RETRY_DELAYS_MS = [0, 60_000, 300_000] as const;

export interface EventRetryOptions {
  /** Multiplies Slack's waits, so that a test can go through the schedule in moments; default 1. */
  scale?: number;
}

const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET']);

/** Why Slack would retry this delivery (X-Slack-Retry-Reason), or undefined when it would not. */
function retryReason(delivery: HttpDelivery): string | undefined {
  if (delivery.status !== undefined) {
    if (delivery.status >= 200 && delivery.status < 300) return undefined;
    return delivery.responseHeaders['x-slack-no-retry'] === '1' ? undefined : 'http_error';
  }
  if (delivery.timedOut) return 'http_timeout';
  return delivery.errorCode !== undefined && CONNECTION_ERRORS.has(delivery.errorCode) ? 'connection_failed' : 'unknown_error';
}

export interface DeliveryOptions extends SigningOptions {
  /** Marks the delivery as Slack's n-th retry (X-Slack-Retry-Num). */
  retryNum?: number;
  /** X-Slack-Retry-Reason; defaults to http_timeout on a retry. */
  retryReason?: string;
  /** Reuses an earlier delivery's event_id, as Slack does when it delivers the same event again. */
  sameEventIdAs?: { eventId?: string } | string;
  /** How long to wait for the app; Slack gives up after 3 s. */
  timeoutMs?: number;
}

export interface SlashCommandOptions extends DeliveryOptions, SlashCommandInput {}

export interface HttpEventsDeps {
  ws: Workspace;
  signingSecret: string;
  verificationToken: string;
  responseUrls: ResponseUrls;
  defaults: { userId: string; channelId: string };
  timeoutMs: number;
  /** Retry failed event deliveries as Slack does; off when undefined. */
  retries?: EventRetryOptions | undefined;
}

export class HttpEvents {
  readonly deliveries: HttpDelivery[] = [];
  requestUrl?: string;
  readonly #deps: HttpEventsDeps;

  constructor(deps: HttpEventsDeps) {
    this.#deps = deps;
  }

  /** With retries on, resolves with the last attempt: the one the app took, or the last Slack made. */
  async deliverEvent(event: Json, options: DeliveryOptions = {}): Promise<HttpDelivery> {
    const sameAs = options.sameEventIdAs;
    const reused = typeof sameAs === 'string' ? sameAs : sameAs?.eventId;
    const envelope = eventCallback(this.#deps.ws, this.#deps.verificationToken, event, reused);
    const first = await this.#post('event', envelope, JSON.stringify(envelope), 'application/json', options);
    return this.#deps.retries ? this.#retry(first, this.#deps.retries, options) : first;
  }

  async #retry(first: HttpDelivery, { scale = 1 }: EventRetryOptions, options: DeliveryOptions): Promise<HttpDelivery> {
    let last = first;
    for (const [i, delayMs] of SLACK_RETRY_DELAYS_MS.entries()) {
      const reason = retryReason(last);
      if (reason === undefined) break;
      await sleep(delayMs * scale);
      last = await this.redeliver(last, { ...options, retryNum: i + 1, retryReason: reason });
    }
    return last;
  }

  /** Sends a delivery again with the same body (same event_id), as Slack's retries do. */
  redeliver(delivery: HttpDelivery, options: DeliveryOptions = {}): Promise<HttpDelivery> {
    const retryNum = options.retryNum ?? Number(delivery.headers['x-slack-retry-num'] ?? 0) + 1;
    return this.#post(delivery.kind, delivery.payload, delivery.body, delivery.headers['content-type'] ?? 'application/json', {
      ...options,
      retryNum,
    });
  }

  sendSlashCommand(options: SlashCommandOptions): Promise<HttpDelivery> {
    const fields = slashCommandFields(this.#deps, options);
    const body = new URLSearchParams(fields).toString();
    return this.#post('slash_command', fields, body, 'application/x-www-form-urlencoded', options);
  }

  /** Posts an interaction (block_actions, view_submission, shortcut …) as `payload=<json>`. */
  sendInteractive(payload: Json, options: DeliveryOptions = {}): Promise<HttpDelivery> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.#post('interactive', payload, body, 'application/x-www-form-urlencoded', options);
  }

  /** The handshake Slack performs when a request URL is saved; the app must echo the challenge. */
  urlVerification(options: SigningOptions = {}): Promise<HttpDelivery> {
    const payload = {
      token: this.#deps.verificationToken,
      challenge: randomBytes(24).toString('base64url'),
      type: 'url_verification',
    };
    return this.#post('url_verification', payload, JSON.stringify(payload), 'application/json', options);
  }

  async #post(kind: HttpDelivery['kind'], payload: Json, body: string, contentType: string, options: DeliveryOptions): Promise<HttpDelivery> {
    const url = this.requestUrl;
    if (!url) throw new Error('fake Slack has no request URL: call setRequestUrl(url) first');
    const headers: Record<string, string> = {
      'content-type': contentType,
      'user-agent': SLACK_USER_AGENT,
      accept: 'application/json,*/*',
      ...signedHeaders(this.#deps.signingSecret, body, options),
    };
    if (options.retryNum !== undefined && options.retryNum > 0) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
    }
    const timeoutMs = options.timeoutMs ?? this.#deps.timeoutMs;
    const started = performance.now();
    const delivery: HttpDelivery = {
      kind,
      ...(kind === 'event' ? { eventId: String(payload.event_id) } : {}),
      payload,
      body,
      headers,
      responseBody: '',
      responseHeaders: {},
      ackMs: 0,
      timedOut: false,
      at: Date.now(),
    };
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
      delivery.ackMs = performance.now() - started;
      delivery.status = response.status;
      delivery.responseHeaders = Object.fromEntries(response.headers);
      delivery.responseBody = await response.text();
    } catch (error) {
      delivery.ackMs = performance.now() - started;
      const name = error instanceof Error ? error.name : '';
      delivery.timedOut = name === 'TimeoutError' || name === 'AbortError';
      delivery.error = error instanceof Error ? error.message : String(error);
      const code = error instanceof Error ? (error.cause as { code?: unknown } | undefined)?.code : undefined;
      if (typeof code === 'string') delivery.errorCode = code;
    }
    this.deliveries.push(delivery);
    return delivery;
  }
}
