/**
 * The other side of bench/slack.bench.ts, in a worker thread so that its work does not count against Herald: the
 * fake Slack, a chat-completions stand-in that notes when it writes each answer's first token, and a recorder in
 * front of the fake's Web API that notes when the first call showing each reply arrives.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { startFakeSlack, type FakeSlack } from '../test/fakes/slack/index.ts';

export type PeerRequest =
  | { type: 'ask'; id: number; where: 'thread' | 'dm'; tag: string }
  | { type: 'requestUrl'; id: number; url: string }
  | { type: 'settle'; id: number }
  | { type: 'close'; id: number };

export type PeerMessage =
  | { type: 'ready'; botToken: string; signingSecret: string; apiUrl: string; serviceUrl: string }
  | { type: 'done'; id: number }
  | { type: 'token'; tag: string; at: number }
  | { type: 'call'; tag: string; at: number };

/** Wall-clock milliseconds with sub-millisecond precision, comparable across threads. */
const now = () => performance.timeOrigin + performance.now();
const port = parentPort!;
const send = (message: PeerMessage) => port.postMessage(message);

function listen(server: ReturnType<typeof createServer>): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function startService() {
  const base = '{"id":"bench","object":"chat.completion.chunk","created":1735689600,"model":"svc-v2.5-pro","choices":[{"index":0,"delta":';
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${base}${JSON.stringify(delta)},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
  return createServer((req, res) => {
    let body = '';
    req.on('data', (piece: Buffer) => (body += piece));
    req.on('end', () => {
      const tag = /bench-\d+/.exec(body)?.[0] ?? 'unknown';
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'bench' });
      res.write(chunk({ role: 'assistant', content: '' }));
      // The first token a moment later, as a model's would be: the clock starts when it is written.
      setTimeout(() => {
        res.write(chunk({ content: 'Here is' }));
        send({ type: 'token', tag, at: now() });
        setTimeout(() => {
          for (const word of [' the', ' answer', ' to', ' your', ' question', '.']) res.write(chunk({ content: word }));
          res.write(chunk({}, 'stop'));
          res.write(
            `data: {"id":"bench","object":"chat.completion.chunk","created":1,"model":"svc-v2.5-pro","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":8,"total_tokens":18}}\n\n`,
          );
          res.end('data: [DONE]\n\n');
        }, 5);
      }, 5);
    });
  });
}

function startRecorder(fake: FakeSlack, tagOfChannel: Map<string, string>) {
  const seen = new Set<string>();
  return createServer((req, res) => {
    const at = now();
    const chunks: Buffer[] = [];
    req.on('data', (piece: Buffer) => chunks.push(piece));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = (req.url ?? '').replace(/^\/api\//, '');
      if (method === 'chat.startStream' || method === 'chat.postMessage') {
        const channel = new URLSearchParams(body.toString()).get('channel') ?? '';
        const tag = tagOfChannel.get(channel);
        if (tag && !seen.has(channel)) {
          seen.add(channel);
          send({ type: 'call', tag, at });
        }
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
        string,
        string
      >;
      fetch(`${fake.apiUrl}${method}`, { method: req.method ?? 'POST', headers, ...(req.method !== 'GET' && { body }) })
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
}

const fake = await startFakeSlack({ rateLimits: { enabled: false } });
const tagOfChannel = new Map<string, string>();
const service = startService();
const recorder = startRecorder(fake, tagOfChannel);
const serviceUrl = await listen(service);
const apiUrl = `${await listen(recorder)}/api/`;
const asked: string[] = [];

port.on('message', (request: PeerRequest) => {
  void handle(request).then(() => send({ type: 'done', id: request.id }));
});

async function handle(request: PeerRequest): Promise<void> {
  switch (request.type) {
    case 'requestUrl':
      fake.setRequestUrl(request.url);
      return;
    case 'ask': {
      const { where, tag } = request;
      const channel = where === 'dm' ? fake.addChannel({ user: fake.addUser({ name: tag }).id }) : fake.addChannel({ name: tag });
      tagOfChannel.set(channel.id, tag);
      asked.push(channel.id);
      const event =
        where === 'dm'
          ? fake.events.message({ text: `question ${tag}`, user: String(channel.user), channel: channel.id })
          : fake.events.appMention({ text: `question ${tag}`, channel: channel.id });
      await fake.deliverEvent(event);
      return;
    }
    case 'settle':
      await fake.waitFor(
        () => asked.every((c) => fake.botMessages(c).some((m) => m.text.endsWith('question.') && (m.stream?.state ?? 'stopped') === 'stopped')),
        30_000,
      );
      return;
    case 'close':
      recorder.closeAllConnections();
      service.closeAllConnections();
      await Promise.all([new Promise((r) => recorder.close(r)), new Promise((r) => service.close(r)), fake.close()]);
      return;
  }
}

send({ type: 'ready', botToken: fake.botToken, signingSecret: fake.signingSecret, apiUrl, serviceUrl });
