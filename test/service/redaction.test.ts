import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/service/client.ts';
import { captureLogger } from './harness.ts';
import { localServer, type LocalServer } from './local-server.ts';

const KEY = 'sk-herald-test-0123456789abcdef';
let server: LocalServer;

beforeAll(async () => {
  // A careless service: echoes the key and the auth header back in its errors and its stream.
  server = await localServer((req, res) => {
    const auth = String(req.headers.authorization ?? req.headers['api-key']);
    if (req.url!.includes('anthropic')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: `bad header ${auth}` } })}\n\n`);
      return;
    }
    res.writeHead(400, { 'content-type': 'text/html' });
    res.end(`<html><head><title>Rejected key ${KEY} (header: ${auth})</title></head></html>`);
  });
});
afterAll(() => server.close());

describe('the API key', () => {
  for (const auth of ['bearer', 'api-key'] as const) {
    it(`never appears in an error message or a log line (${auth})`, async () => {
      const { logger, lines } = captureLogger([KEY]);
      const client = new ServiceClient({
        baseUrl: server.url,
        apiKey: KEY,
        auth,
        messagesPrefix: 'anthropic',
        timeouts: { connectMs: 1000, firstByteMs: 1000, idleMs: 1000 },
        maxRetries: 0,
        logger,
      });
      const errors: Error[] = [];
      await client.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: Error) => errors.push(e));
      await client
        .messagesStream({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .finalResult()
        .catch((e: Error) => errors.push(e));
      await client.close();

      expect(errors.map((e) => e.name)).toEqual(['BadRequestError', 'ServerError']);
      expect(errors[0]!.message).toMatch(/^The AI service rejected the request: Rejected key \[redacted\] .*\(HTTP 400\)\.$/);
      expect(lines).toHaveLength(2);
      const everything = [...errors.map((e) => `${e.message} ${e.stack} ${JSON.stringify(e)}`), ...lines].join('\n');
      expect(everything).toContain('[redacted]');
      expect(everything).not.toContain(KEY);
      expect(everything).not.toContain(KEY.slice(0, 16));
    });
  }
});
