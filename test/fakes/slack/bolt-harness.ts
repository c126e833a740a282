/** Runs the real Bolt App against a fake Slack, configured only through Bolt's own options. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { AppOptions } from '@slack/bolt';
import type { FakeSlack } from './index.ts';

/** web-api's retry policy shortened so a failing test fails in seconds, not minutes. */
export const FAST_RETRIES = { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 50 };

export interface RunningApp {
  app: App;
  stop(): Promise<void>;
}

export async function startHttpApp(fake: FakeSlack, configure: (app: App) => void, options: Partial<AppOptions> = {}): Promise<RunningApp> {
  const app = new App({
    token: fake.botToken,
    signingSecret: fake.signingSecret,
    logLevel: LogLevel.ERROR,
    ...options,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES, ...options.clientOptions },
  });
  configure(app);
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  const { port } = server.address() as AddressInfo;
  fake.setRequestUrl(`http://127.0.0.1:${port}/slack/events`);
  return { app, stop: async () => void (await app.stop()) };
}

export async function startSocketApp(fake: FakeSlack, configure: (app: App) => void, clientPingTimeout = 400): Promise<RunningApp> {
  const receiver = new SocketModeReceiver({
    appToken: fake.appToken,
    logLevel: LogLevel.ERROR,
    // Sets how soon the client reconnects after a disconnect (clientPingTimeout × attempt) and its ping cadence.
    clientPingTimeout,
    installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
  });
  const app = new App({
    token: fake.botToken,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: FAST_RETRIES },
  });
  configure(app);
  await app.start();
  return {
    app,
    stop: async () => {
      await app.stop();
      // Bolt's stop() returns before the client's close handshake is over.
      await fake.waitFor(() => fake.socket.openConnections().length === 0);
    },
  };
}
