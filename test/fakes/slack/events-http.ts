/**
 * Slack → app deliveries over HTTP: Events API callbacks (JSON), slash commands and interactions
 * (form-encoded), each signed with the app's signing secret exactly as Slack signs them. Slack waits three
 * seconds for a 2xx; the fake records the status and how long the app took to answer.
 */
import { randomBytes } from 'node:crypto';
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
  at: number;
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
}

export class HttpEvents {
  readonly deliveries: HttpDelivery[] = [];
  requestUrl?: string;
  readonly #deps: HttpEventsDeps;

  constructor(deps: HttpEventsDeps) {
    this.#deps = deps;
  }

  deliverEvent(event: Json, options: DeliveryOptions = {}): Promise<HttpDelivery> {
    const sameAs = options.sameEventIdAs;
    const reused = typeof sameAs === 'string' ? sameAs : sameAs?.eventId;
    const envelope = eventCallback(this.#deps.ws, this.#deps.verificationToken, event, reused);
    return this.#post('event', envelope, JSON.stringify(envelope), 'application/json', options);
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
    }
    this.deliveries.push(delivery);
    return delivery;
  }
}
