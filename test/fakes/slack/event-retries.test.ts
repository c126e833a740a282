import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from './index.ts';

/** An app endpoint answering each delivery in turn as `answers` says (the last answer repeats). */
async function scriptedApp(answers: Array<(res: ServerResponse) => void>): Promise<{ url: string; server: Server; received: IncomingMessage[] }> {
  const received: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    received.push(req);
    req.resume();
    req.on('end', () => (answers[received.length - 1] ?? answers.at(-1)!)(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, server, received };
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res.writeHead(code, headers).end();

let fake: FakeSlack | undefined;
let app: Server | undefined;

afterEach(async () => {
  await fake?.close();
  app?.closeAllConnections();
  app?.close();
  fake = app = undefined;
});

async function slackWith(options: FakeSlackOptions, url: string): Promise<FakeSlack> {
  fake = await startFakeSlack(options);
  fake.setRequestUrl(url);
  return fake;
}

const retryHeaders = (f: FakeSlack) => f.httpDeliveries.map((d) => [d.headers['x-slack-retry-num'], d.headers['x-slack-retry-reason']]);

it('retries an event the app failed with an error, with the same event_id, until it takes it', async () => {
  const endpoint = await scriptedApp([status(500), status(503), status(200)]);
  app = endpoint.server;
  const slack = await slackWith({ eventRetries: { scale: 0.001 } }, endpoint.url);
  const taken = await slack.deliverEvent(slack.events.appMention({ text: 'hello' }));
  expect(taken.status).toBe(200);
  expect(retryHeaders(slack)).toEqual([
    [undefined, undefined],
    ['1', 'http_error'],
    ['2', 'http_error'],
  ]);
  expect(new Set(slack.httpDeliveries.map((d) => d.eventId)).size).toBe(1);
});

it("gives up after three retries, waiting longer before each as Slack's schedule says", async () => {
  const endpoint = await scriptedApp([status(500)]);
  app = endpoint.server;
  const slack = await slackWith({ eventRetries: { scale: 0.002 } }, endpoint.url);
  const last = await slack.deliverEvent(slack.events.appMention({ text: 'hello' }));
  expect(last.status).toBe(500);
  expect(last.headers['x-slack-retry-num']).toBe('3');
  const at = slack.httpDeliveries.map((d) => d.at);
  expect(at).toHaveLength(4);
  // One minute and five minutes, scaled down.
  expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(120);
  expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(600);
});

it('says why it retries: a refused connection, an answer too late', async () => {
  const closed = await scriptedApp([status(200)]);
  await new Promise((resolve) => closed.server.close(resolve));
  const refused = await slackWith({ eventRetries: { scale: 0 } }, closed.url);
  await refused.deliverEvent(refused.events.appMention({ text: 'anyone?' }));
  expect(retryHeaders(refused).map(([, reason]) => reason)).toEqual([undefined, 'connection_failed', 'connection_failed', 'connection_failed']);
  await refused.close();

  const endpoint = await scriptedApp([() => undefined, status(200)]);
  app = endpoint.server;
  const slow = await slackWith({ eventRetries: { scale: 0 }, eventTimeoutMs: 200 }, endpoint.url);
  const taken = await slow.deliverEvent(slow.events.appMention({ text: 'slowly' }));
  expect(taken.status).toBe(200);
  expect(retryHeaders(slow)).toEqual([
    [undefined, undefined],
    ['1', 'http_timeout'],
  ]);
});

it('does not retry an error the app marks X-Slack-No-Retry, nor anything when retries are off', async () => {
  const endpoint = await scriptedApp([status(500, { 'x-slack-no-retry': '1' }), status(500)]);
  app = endpoint.server;
  const slack = await slackWith({ eventRetries: { scale: 0 } }, endpoint.url);
  expect((await slack.deliverEvent(slack.events.appMention({ text: 'once' }))).status).toBe(500);
  expect(slack.httpDeliveries).toHaveLength(1);
  await slack.close();

  const plain = await slackWith({}, endpoint.url);
  expect((await plain.deliverEvent(plain.events.appMention({ text: 'once more' }))).status).toBe(500);
  expect(plain.httpDeliveries).toHaveLength(1);
});
