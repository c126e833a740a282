/**
 * How Slack reaches Herald. Socket Mode (SLACK_APP_TOKEN set) opens a WebSocket from Herald to Slack and needs no
 * public URL. HTTP mode takes signed requests at /slack/events: on the process's ops server when the entry point
 * offers `mount` (one PORT for Slack, /healthz, /readyz and /metrics), else on a port of Bolt's own.
 * Bolt checks every HTTP request's signature and age and answers a forged or stale one with 401.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, HTTPReceiverDeferredRequestError, SocketModeReceiver, type webApi } from '@slack/bolt';
import type { RouteHandler } from '../../src/ops/ops-server.ts';
import type { MountFunction } from '../../src/platform/platform-hooks.ts';

export interface ReceiverOptions {
  botToken: string;
  botUserId: string;
  botId?: string;
  apiUrl: string;
  logger: webApi.Logger;
  /** Socket Mode when set. */
  appToken?: string;
  signingSecret?: string;
  mount?: MountFunction;
  port: number;
  /** The interface Bolt's own HTTP server binds (default: all). */
  host?: string;
  /** How long Socket Mode waits for a pong; reconnects are paced by it too. */
  clientPingTimeoutMs?: number;
}

export interface SlackConnection {
  app: App;
  mode: 'socket' | 'http-mounted' | 'http';
  /** Starts receiving; resolves with the port of Herald's own Slack HTTP server in plain HTTP mode. */
  start(): Promise<number | undefined>;
  /**
   * Takes nothing new, before replies in progress are drained. Socket Mode closes its socket (Slack then delivers to
   * another connection). Over HTTP, an Events API delivery gets a 503, which Slack retries (on another instance
   * behind the same URL); a slash command or an interaction, which Slack never retries, is answered that Herald is
   * restarting.
   */
  stopIntake(): Promise<void>;
  /** Closes the connection. */
  stop(): Promise<void>;
  /** Socket Mode: whether the WebSocket is up (for readiness). */
  connected(): boolean;
}

const RESTARTING = JSON.stringify({ response_type: 'ephemeral', text: 'Herald is restarting; please ask again in a moment.' });

type Intake = 'open' | 'draining' | 'closed';

/** Slack's HTTP requests to Bolt's receiver while intake is open; per payload type while draining. */
function gate(receiver: HTTPReceiver, intake: () => Intake): RouteHandler {
  return (req, res) => {
    const state = intake();
    if (state !== 'open') {
      req.resume();
      // Commands and interactions come form-encoded; Events API deliveries as JSON.
      const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      if (state === 'draining' && form) res.writeHead(200, { 'content-type': 'application/json' }).end(RESTARTING);
      else res.writeHead(503, { 'retry-after': '1' }).end();
      return;
    }
    try {
      receiver.requestListener(req, res);
    } catch (error) {
      if (!(error instanceof HTTPReceiverDeferredRequestError)) throw error;
      res.writeHead(404).end();
    }
  };
}

export function connectSlack(options: ReceiverOptions): SlackConnection {
  const clientOptions = { slackApiUrl: options.apiUrl };
  const identity = { token: options.botToken, botUserId: options.botUserId, ...(options.botId && { botId: options.botId }) };
  if (options.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: options.appToken,
      logger: options.logger,
      installerOptions: { clientOptions },
      ...(options.clientPingTimeoutMs && { clientPingTimeout: options.clientPingTimeoutMs }),
    });
    let up = false;
    receiver.client.on('connected', () => (up = true));
    receiver.client.on('disconnected', () => (up = false));
    receiver.client.on('reconnecting', () => (up = false));
    const app = new App({ ...identity, receiver, logger: options.logger, clientOptions });
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        up = false;
        await app.stop();
      })());
    return {
      app,
      mode: 'socket',
      start: async () => {
        await app.start();
        return undefined;
      },
      stopIntake: close,
      stop: close,
      connected: () => up,
    };
  }
  if (!options.signingSecret) throw new Error('Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode)');
  const receiver = new HTTPReceiver({ signingSecret: options.signingSecret, logger: options.logger });
  const app = new App({ ...identity, receiver, logger: options.logger, clientOptions });
  let intake: Intake = 'closed';
  const handler = gate(receiver, () => intake);
  const stopIntake = async () => {
    if (intake === 'open') intake = 'draining';
  };
  const mount = options.mount;
  if (mount) {
    return {
      app,
      mode: 'http-mounted',
      start: async () => {
        intake = 'open';
        mount('/slack', handler);
        return undefined;
      },
      stopIntake,
      stop: async () => {
        intake = 'closed';
      },
      connected: () => true,
    };
  }
  const server = createServer(handler);
  return {
    app,
    mode: 'http',
    start: async () => {
      intake = 'open';
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    stopIntake,
    stop: async () => {
      intake = 'closed';
      if (!server.listening) return;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    connected: () => true,
  };
}
