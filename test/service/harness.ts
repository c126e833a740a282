import { createLogger, type Logger } from '../../src/log/logger.ts';
import { ServiceClient, type ServiceClientOptions } from '../../src/service/client.ts';
import type { ChatDelta, ChatStream } from '../../src/service/types.ts';

/** A logger whose JSON lines land in `lines`, with the same redaction as production. */
export function captureLogger(secrets: readonly string[]): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', secrets, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

export interface TestClient {
  client: ServiceClient;
  lines: string[];
}

export function testClient(baseUrl: string, apiKey: string, overrides: Partial<ServiceClientOptions> = {}): TestClient {
  const { logger, lines } = captureLogger([apiKey]);
  const client = new ServiceClient({
    baseUrl,
    apiKey,
    auth: 'bearer',
    messagesPrefix: 'anthropic',
    timeouts: { connectMs: 2000, firstByteMs: 3000, idleMs: 2000 },
    maxRetries: 2,
    retryBaseMs: 20,
    logger,
    ...overrides,
  });
  return { client, lines };
}

export async function collect(stream: ChatStream): Promise<ChatDelta[]> {
  const out: ChatDelta[] = [];
  for await (const delta of stream) out.push(delta);
  return out;
}

export function textOf(deltas: ChatDelta[], type: 'content' | 'reasoning' = 'content'): string {
  return deltas.map((d) => (d.type === type ? d.text : '')).join('');
}

export function logRecords(lines: string[]): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}
