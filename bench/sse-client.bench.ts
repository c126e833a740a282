import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAI } from 'openai';
import { Stream } from 'openai/streaming';
import { Agent, request } from 'undici';
import { createLogger } from '../src/log/logger.ts';
import { ChatChunkReader } from '../src/service/chat-chunk-reader.ts';
import { ServiceClient } from '../src/service/client.ts';
import { SseDecoder } from '../src/service/sse-decoder.ts';
import type { ChatDelta } from '../src/service/types.ts';
import { median } from './stats.ts';

const CHUNKS = 20_000;
const ROUNDS = 7;
const WARMUP = 2;
const NETWORK_CHUNK = 16 * 1024;
const KEY = 'bench-key-0123456789';

/** A recorded-style stream: 20,000 content chunks (ASCII, CJK and emoji), a finish chunk, a usage chunk, [DONE]. */
function recordedStream(): Buffer {
  const words = ['Hello', ' world', '，你好', ' 🌍', ' the', ' quick', ' brown', ' fox', ' — ', 'jumps'];
  const base =
    '{"id":"0123456789abcdef0123456789abcdef","object":"chat.completion.chunk","created":1735689600,"model":"svc-v2.5-pro","choices":[{"index":0,"delta":';
  const parts: string[] = [];
  for (let i = 0; i < CHUNKS; i++) {
    parts.push(`data: ${base}${JSON.stringify({ content: words[i % words.length] })},"finish_reason":null}]}\n\n`);
  }
  parts.push(`data: ${base}{},"finish_reason":"stop"}]}\n\n`);
  parts.push(
    `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"svc-v2.5-pro","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":${CHUNKS},"total_tokens":${CHUNKS + 12}}}\n\n`,
  );
  parts.push('data: [DONE]\n\n');
  return Buffer.from(parts.join(''));
}

function slices(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

async function serve(pieces: Buffer[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'bench' });
      for (const piece of pieces) res.write(piece);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function timed(fn: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const count = await fn();
  const ms = performance.now() - started;
  if (count !== CHUNKS) throw new Error(`expected ${CHUNKS} content chunks, got ${count}`);
  return ms;
}

const body = { model: 'svc-v2.5-pro', messages: [{ role: 'user' as const, content: 'bench' }] };

export async function run(): Promise<{ markdown: string }> {
  const bytes = recordedStream();
  const pieces = slices(bytes, NETWORK_CHUNK);
  const server = await serve(pieces);
  const logger = createLogger({ level: 'warn', secrets: [KEY] });
  const herald = new ServiceClient({
    baseUrl: server.url,
    apiKey: KEY,
    auth: 'bearer',
    messagesPrefix: 'anthropic',
    timeouts: { connectMs: 5000, firstByteMs: 30_000, idleMs: 30_000 },
    maxRetries: 0,
    logger,
  });
  const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
  const raw = new Agent();

  const contenders: Record<string, () => Promise<number>> = {
    'transport only (undici, bytes counted, no parsing)': async () => {
      const response = await request(`${server.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body), dispatcher: raw });
      let size = 0;
      for await (const chunk of response.body) size += (chunk as Buffer).length;
      if (size !== bytes.length) throw new Error('short read');
      return CHUNKS;
    },
    'Herald ServiceClient.chatStream': async () => {
      let count = 0;
      for await (const delta of herald.chatStream(body)) if (delta.type === 'content') count++;
      return count;
    },
    'openai SDK chat.completions.create({stream: true})': async () => {
      let count = 0;
      const stream = await openai.chat.completions.create({ ...body, stream: true });
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) count++;
      return count;
    },
    'Herald parser in memory (SseDecoder + ChatChunkReader)': async () => {
      let count = 0;
      const out: ChatDelta[] = [];
      const reader = new ChatChunkReader([KEY]);
      const decoder = new SseDecoder((_event, data) => reader.read(data, out));
      for (const piece of pieces) {
        decoder.push(piece);
        for (const delta of out) if (delta.type === 'content') count++;
        out.length = 0;
        if (reader.done) break;
      }
      reader.end(out);
      return count;
    },
    'openai Stream.fromSSEResponse in memory': async () => {
      let at = 0;
      const response = new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at < pieces.length) controller.enqueue(pieces[at++]!);
            else controller.close();
          },
        }),
      );
      let count = 0;
      for await (const chunk of Stream.fromSSEResponse<OpenAI.ChatCompletionChunk>(response, new AbortController())) {
        if (chunk.choices[0]?.delta?.content) count++;
      }
      return count;
    },
  };

  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  try {
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const [name, fn] of Object.entries(contenders)) {
        const ms = await timed(fn);
        if (round >= WARMUP) samples[name]!.push(ms);
      }
    }
  } finally {
    await herald.close();
    await raw.close();
    await server.close();
  }

  const mb = bytes.length / 1024 / 1024;
  const med = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  const row = (name: string) => {
    const ms = med[name]!;
    return `| ${name} | ${ms.toFixed(1)} | ${Math.round((CHUNKS / ms) * 1000).toLocaleString('en-US')} | ${((mb / ms) * 1000).toFixed(1)} | ${((ms / CHUNKS) * 1000).toFixed(2)} |`;
  };
  const names = Object.keys(contenders);
  const heraldMs = med['Herald ServiceClient.chatStream']!;
  const openaiMs = med['openai SDK chat.completions.create({stream: true})']!;
  const transportMs = med['transport only (undici, bytes counted, no parsing)']!;
  const overheadMs = (heraldMs - transportMs) / CHUNKS;
  const markdown = [
    '## SSE client: Herald vs the openai SDK',
    '',
    `One recorded chat stream of ${CHUNKS.toLocaleString('en-US')} chunks (${mb.toFixed(2)} MB, ASCII + CJK + emoji), served from a local`,
    `HTTP server in ${NETWORK_CHUNK / 1024} KiB writes; every contender reads the whole stream and counts the content chunks.`,
    `Median of ${ROUNDS} rounds after ${WARMUP} warm-up rounds, contenders interleaved within each round.`,
    '',
    '| contender | ms / stream | chunks/s | MB/s | µs / chunk |',
    '|---|---:|---:|---:|---:|',
    ...names.map(row),
    '',
    `- Herald client overhead per streamed chunk (chatStream minus transport only): **${(overheadMs * 1000).toFixed(2)} µs = ${overheadMs.toFixed(4)} ms** (goal < 0.1 ms).`,
    `- Herald end-to-end vs openai SDK: **${(openaiMs / heraldMs).toFixed(2)}×** the openai SDK's throughput (goal ≥ 1).`,
  ].join('\n');
  return { markdown };
}
