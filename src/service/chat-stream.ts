import { ChatChunkReader } from './chat-chunk-reader.ts';
import { bodyGist } from './error-response.ts';
import { ResponseFormatError, type ServiceError } from './errors.ts';
import { type ServiceRequest, STOPPED } from './service-request.ts';
import { MessagesEventReader } from './messages-event-reader.ts';
import { ResultCollector, deltasFromResult, resultFromChat, resultFromMessages } from './results.ts';
import { SseDecoder } from './sse-decoder.ts';
import type { ChatDelta, ChatResult, ChatStream, Usage } from './types.ts';

export type WireFormat = 'chat' | 'messages';

/** Parses a complete (non-streamed) response body of either format. */
export function parseResult(format: WireFormat, text: string, requestId: string | undefined, secrets: readonly string[]): ChatResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    const gist = bodyGist(text, secrets);
    throw new ResponseFormatError(`The AI service sent a response that is not valid JSON${gist ? ` (${JSON.stringify(gist)})` : ''}.`, {
      requestId,
      cause,
    });
  }
  return format === 'chat' ? resultFromChat(json, requestId, secrets) : resultFromMessages(json, requestId, secrets);
}

/**
 * A streamed answer over one ServiceRequest. The request starts on the first `next()` (or `finalResult()`);
 * leaving a `for await` early, or `abort()`, closes the connection.
 */
export class ServiceChatStream implements ChatStream {
  readonly #request: ServiceRequest;
  readonly #format: WireFormat;
  readonly #secrets: readonly string[];
  readonly #collector = new ResultCollector();
  #generator: AsyncGenerator<ChatDelta, void> | undefined;
  #model = '';
  #failure: ServiceError | undefined;

  constructor(request: ServiceRequest, format: WireFormat, secrets: readonly string[]) {
    this.#request = request;
    this.#format = format;
    this.#secrets = secrets;
  }

  get requestId(): string | undefined {
    return this.#request.requestId;
  }

  [Symbol.asyncIterator](): AsyncGenerator<ChatDelta, void> {
    this.#generator ??= this.#run();
    return this.#generator;
  }

  async finalResult(): Promise<ChatResult> {
    const iterator = this[Symbol.asyncIterator]();
    while (!(await iterator.next()).done);
    if (this.#failure) throw this.#failure;
    return this.#collector.result(this.#model, this.requestId);
  }

  abort(): void {
    this.#request.stop();
  }

  async *#run(): AsyncGenerator<ChatDelta, void> {
    const request = this.#request;
    const out: ChatDelta[] = [];
    let usage: Usage | undefined;
    let outcome: { usage?: Usage; error?: ServiceError | typeof STOPPED } = { error: STOPPED };
    try {
      const opened = await request.open();
      if (opened.contentType.startsWith('text/html')) {
        // A proxy's page with status 200: the SSE parser would skip it all and report an empty answer.
        const gist = bodyGist(await request.readAll(opened.first), this.#secrets);
        throw new ResponseFormatError(`The AI service answered with a web page instead of a stream${gist ? ` (${JSON.stringify(gist)})` : ''}.`, {
          requestId: request.requestId,
        });
      }
      if (opened.contentType.includes('application/json')) {
        // The service answered a stream request with one JSON object (some proxies do): same deltas.
        const result = parseResult(this.#format, await request.readAll(opened.first), request.requestId, this.#secrets);
        this.#model = result.model;
        out.push(...deltasFromResult(result));
        usage = result.usage;
      } else {
        const reader = this.#format === 'chat' ? new ChatChunkReader(this.#secrets) : new MessagesEventReader(this.#secrets);
        const decoder =
          reader instanceof ChatChunkReader
            ? new SseDecoder((_event, data) => reader.read(data, out, request.requestId))
            : new SseDecoder((event, data) => reader.read(event, data, out, request.requestId));
        for (let chunk = opened.first; chunk; chunk = await request.next()) {
          decoder.push(chunk);
          for (let i = 0; i < out.length; i++) {
            const delta = out[i]!;
            this.#collector.add(delta);
            yield delta;
          }
          out.length = 0;
          if (reader.done) break;
        }
        if (!reader.done) decoder.end();
        reader.end(out);
        this.#model = reader.model;
      }
      for (const delta of out) if (delta.type === 'usage') usage = delta.usage;
      outcome = { usage };
      for (const delta of out) {
        this.#collector.add(delta);
        yield delta;
      }
    } catch (error) {
      const failure = request.classify(error);
      outcome = { error: failure };
      if (failure === STOPPED) return;
      this.#failure = failure;
      throw failure;
    } finally {
      request.settle(outcome);
    }
  }
}
