import { Agent, type Dispatcher } from 'undici';
import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import { ServiceChatStream, parseResult, type WireFormat } from './chat-stream.ts';
import { ServiceRequest, STOPPED, type ServiceRequestContext } from './service-request.ts';
import type { ChatRequest, ChatResult, ChatStream, MessagesRequest, RequestOptions, ServiceTimeouts } from './types.ts';

export interface ServiceClientOptions {
  baseUrl: string;
  apiKey: string;
  auth: 'bearer' | 'api-key';
  messagesPrefix: string;
  timeouts: ServiceTimeouts;
  maxRetries: number;
  logger: Logger;
  /** First backoff step when the service sent no Retry-After (doubled per attempt, ±25 %). Default 500 ms. */
  retryBaseMs?: number;
  /** An undici dispatcher to use instead of the client's own connection pool. */
  dispatcher?: Dispatcher;
}

const CHAT_PATH = '/v1/chat/completions';

/** The service's two endpoints over one keep-alive connection pool; see ChatStream for streaming. */
export class ServiceClient {
  readonly #ctx: ServiceRequestContext;
  readonly #ownDispatcher: Agent | undefined;
  readonly #messagesPath: string;

  constructor(options: ServiceClientOptions) {
    const base = new URL(options.baseUrl);
    this.#ownDispatcher = options.dispatcher
      ? undefined
      : new Agent({ connect: { timeout: options.timeouts.connectMs }, headersTimeout: options.timeouts.firstByteMs, bodyTimeout: 0 });
    const auth: Record<string, string> = options.auth === 'api-key' ? { 'api-key': options.apiKey } : { authorization: `Bearer ${options.apiKey}` };
    this.#messagesPath = `/${options.messagesPrefix}/v1/messages`;
    this.#ctx = {
      dispatcher: options.dispatcher ?? this.#ownDispatcher!,
      origin: base.origin,
      basePath: base.pathname.replace(/\/+$/, ''),
      headers: { 'content-type': 'application/json', 'user-agent': 'herald', ...auth },
      timeouts: options.timeouts,
      maxRetries: options.maxRetries,
      retryBaseMs: options.retryBaseMs ?? 500,
      logger: options.logger,
      secrets: [options.apiKey],
    };
  }

  /** POST /v1/chat/completions, whole answer at once. */
  chat(request: ChatRequest, options: RequestOptions = {}): Promise<ChatResult> {
    return this.#complete('chat', CHAT_PATH, request, request.model, options);
  }

  /** POST /v1/chat/completions with `stream: true`. */
  chatStream(request: ChatRequest, options: RequestOptions = {}): ChatStream {
    return this.#stream('chat', CHAT_PATH, request, request.model, options);
  }

  /** POST /<prefix>/v1/messages (Messages format), mapped to the same ChatResult. */
  messages(request: MessagesRequest, options: RequestOptions = {}): Promise<ChatResult> {
    return this.#complete('messages', this.#messagesPath, request, request.model, options);
  }

  /** POST /<prefix>/v1/messages with `stream: true`, mapped to the same ChatDeltas. */
  messagesStream(request: MessagesRequest, options: RequestOptions = {}): ChatStream {
    return this.#stream('messages', this.#messagesPath, request, request.model, options);
  }

  /** Closes the client's own connections (not a dispatcher passed in). */
  async close(): Promise<void> {
    await this.#ownDispatcher?.close();
  }

  #request(format: WireFormat, path: string, body: object, stream: boolean, model: string, options: RequestOptions): ServiceRequest {
    const headers = format === 'messages' ? { ...this.#ctx.headers, 'anthropic-version': '2023-06-01' } : this.#ctx.headers;
    return new ServiceRequest(
      { ...this.#ctx, headers: { ...headers, accept: stream ? 'text/event-stream' : 'application/json' } },
      { path, body: JSON.stringify({ ...body, stream }), stream, model, capability: options.capability ?? format, signal: options.signal },
    );
  }

  #stream(format: WireFormat, path: string, body: object, model: string, options: RequestOptions): ChatStream {
    return new ServiceChatStream(this.#request(format, path, body, true, model, options), format, this.#ctx.secrets);
  }

  async #complete(format: WireFormat, path: string, body: object, model: string, options: RequestOptions): Promise<ChatResult> {
    const request = this.#request(format, path, body, false, model, options);
    try {
      const opened = await request.open();
      const result = parseResult(format, await request.readAll(opened.first), request.requestId, this.#ctx.secrets);
      request.settle({ usage: result.usage });
      return result;
    } catch (error) {
      const failure = request.classify(error);
      request.settle({ error: failure });
      throw failure === STOPPED ? error : failure;
    }
  }
}

/** The client for the configured service (API_BASE_URL, API_KEY, API_AUTH, timeouts, retries). */
export function createServiceClient(config: Config, logger: Logger): ServiceClient {
  const { baseUrl, key, auth, messagesPrefix, timeouts, maxRetries } = config.api;
  return new ServiceClient({ baseUrl, apiKey: key, auth, messagesPrefix, timeouts, maxRetries, logger });
}
