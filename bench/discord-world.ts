import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeDiscord } from '../test/fakes/discord/index.ts';
import { startEmulator } from '../test/fakes/service/emulator.ts';
import { serveWorld } from './world-thread.ts';

/**
 * The world around Herald for bench/discord.bench.ts, in a worker thread of its own (as the real Discord and
 * service are other machines): the service emulator behind a proxy that notes when each response's first answer
 * token leaves for Herald, and the fake Discord. The bench drives it by messages.
 */

async function firstTokenProxy(target: string): Promise<{ url: string; firstTokenAt: number[]; close(): Promise<void> }> {
  const firstTokenAt: number[] = [];
  const { hostname, port } = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      let seen = false;
      answer.on('data', (chunk: Buffer) => {
        if (!seen && /"content":"[^"]/.test(chunk.toString('utf8'))) {
          seen = true;
          firstTokenAt.push(Date.now());
        }
        res.write(chunk);
      });
      answer.on('end', () => res.end());
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstTokenAt,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const emu = await startEmulator();
const proxy = await firstTokenProxy(emu.url);
const fake = await startFakeDiscord({ heartbeatIntervalMs: 5000 });

const isMessageCreate = (r: { method: string; route: string | null }) => r.method === 'POST' && r.route === '/channels/:channel_id/messages';

const operations: Record<string, (args: any) => unknown> = {
  setup: () => ({ token: fake.token, restUrl: fake.restUrl, apiUrl: proxy.url, apiKey: emu.apiKey, botId: fake.botUser.id }),
  channel: ({ name }: { name: string }) => fake.addChannel({ name }).id,
  send: ({ channelId, content }: { channelId: string; content: string }) => void fake.sendMessage({ channelId, content }),
  pace: ({ tokensPerSecond }: { tokensPerSecond: number }) => void (emu.pace.tokensPerSecond = tokensPerSecond),
  firstTokens: () => [...proxy.firstTokenAt],
  /** When each channel's first message reached the fake. */
  firstMessages: ({ channelIds }: { channelIds: string[] }) =>
    channelIds.map((id) => fake.requests.find((r) => isMessageCreate(r) && r.params.channel_id === id)?.timestamp),
  edits: ({ channelId }: { channelId: string }) => ({
    created: fake.requests.find((r) => isMessageCreate(r) && r.params.channel_id === channelId)!.timestamp,
    edits: fake.requests.filter((r) => r.method === 'PATCH' && r.params.channel_id === channelId).map((r) => r.timestamp),
  }),
  /** This thread's CPU time so far, to tell the world's own load from Herald's. */
  threadLoad: () => ({ cpu: process.threadCpuUsage() }),
  rateLimited: () => fake.rateLimitHits.map((hit) => `${hit.method} ${hit.route}${hit.global ? ', global' : ''}`),
  close: async () => {
    await fake.close();
    await proxy.close();
    await emu.close();
  },
};

serveWorld(operations);
