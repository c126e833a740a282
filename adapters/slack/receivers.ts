/**
 * How Slack reaches Herald. Socket Mode (SLACK_APP_TOKEN set) opens a WebSocket from Herald to Slack and needs no
 * public URL. HTTP mode takes signed requests at /slack/events: on the process's ops server when the entry point
 * offers `mount` (one PORT for Slack, /healthz, /readyz and /metrics), else on a port of Bolt's own.
 * Bolt checks every HTTP request's signature and age and answers a forged or stale one with 401.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, HTTPReceiverDeferredRequestError, SocketModeReceiver, webApi } from '@slack/bolt';
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
  /** Starts receiving; resolves with the port Bolt listens on in plain HTTP mode. */
  start(): Promise<number | undefined>;
  stop(): Promise<void>;
  /** Socket Mode: whether the WebSocket is up (for readiness). */
  connected(): boolean;
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
    return {
      app,
      mode: 'socket',
      start: async () => {
        await app.start();
        return undefined;
      },
      stop: async () => {
        up = false;
        await app.stop();
      },
      connected: () => up,
    };
  }
  if (!options.signingSecret) throw new Error('Slack HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN for Socket Mode)');
  const receiver = new HTTPReceiver({ signingSecret: options.signingSecret, logger: options.logger });
  const app = new App({ ...identity, receiver, logger: options.logger, clientOptions });
  const mount = options.mount;
  if (mount) {
    let open = false;
    return {
      app,
      mode: 'http-mounted',
      start: async () => {
        open = true;
        mount('/slack', (req, res) => {
          if (!open) return void res.writeHead(503, { 'retry-after': '1' }).end();
          try {
            receiver.requestListener(req, res);
          } catch (error) {
            if (!(error instanceof HTTPReceiverDeferredRequestError)) throw error;
            res.writeHead(404).end();
          }
        });
        return undefined;
      },
      stop: async () => {
        open = false;
      },
      connected: () => true,
    };
  }
  return {
    app,
    mode: 'http',
    start: async () => {
      const server = (await app.start({ port: options.port, ...(options.host && { host: options.host }) })) as Server;
      return (server.address() as AddressInfo).port;
    },
    stop: async () => {
      await app.stop();
    },
    connected: () => true,
  };
}
