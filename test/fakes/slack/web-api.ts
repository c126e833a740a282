/**
 * The Web API front door: POST (or GET) /api/<method>, form-encoded, multipart or JSON, token from the
 * Authorization header (or a `token` form field). Errors come back as HTTP 200 {ok:false, error}, except a
 * rate-limited call (429 + Retry-After) and an unknown method (404), as Slack does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, parseApiRequest, readBody, sendJson } from './http-util.ts';
import { fail } from './method-types.ts';
import type { FakeCore, MethodSpec, TokenKind } from './method-types.ts';
import { chatMethods } from './methods-chat.ts';
import { conversationMethods } from './methods-conversations.ts';
import { ephemeralMethods } from './methods-ephemeral.ts';
import { permalinkMethods } from './methods-permalink.ts';
import { fileMethods } from './methods-files.ts';
import { streamMethods } from './methods-stream.ts';
import { viewMethods } from './methods-views.ts';
import { workspaceMethods } from './methods-workspace.ts';
import type { Json } from './state.ts';

export const METHODS: Record<string, MethodSpec> = {
  ...workspaceMethods,
  ...chatMethods,
  ...ephemeralMethods,
  ...streamMethods,
  ...conversationMethods,
  ...permalinkMethods,
  ...fileMethods,
  ...viewMethods,
};

export interface ApiCall {
  method: string;
  /** Arguments as received (form values are strings, JSON values keep their types); the token is not among them. */
  args: Json;
  token?: string;
  tokenKind?: TokenKind;
  contentType: string;
  status: number;
  response: Json;
  at: number;
}

interface Injected {
  times: number;
  error: string;
}

/** The next call of a method, done by Slack but answered only once released (a response lost in a dying process). */
export interface HeldResponse {
  /** Resolves with the call once Slack has done it and is holding its answer. */
  readonly reached: Promise<ApiCall>;
  release(): void;
}

export class WebApi {
  readonly log: ApiCall[] = [];
  readonly #core: FakeCore;
  readonly #injected = new Map<string, Injected>();
  readonly #held = new Map<string, { reached: (call: ApiCall) => void; released: Promise<void> }>();

  constructor(core: FakeCore) {
    this.#core = core;
  }

  /** Makes the next `times` calls of a method answer {ok:false, error} after passing auth and rate limits. */
  injectError(method: string, error: string, times = 1): void {
    this.#injected.set(method, { error, times });
  }

  /** Holds the answer to the next call of `method`: Slack does what it asks at once, but answers only once released. */
  holdResponse(method: string): HeldResponse {
    let reached!: (call: ApiCall) => void;
    let release!: () => void;
    const held = { reached: new Promise<ApiCall>((resolve) => (reached = resolve)), released: new Promise<void>((resolve) => (release = resolve)) };
    this.#held.set(method, { reached, released: held.released });
    return { reached: held.reached, release };
  }

  async handle(req: IncomingMessage, res: ServerResponse, method: string, url: URL): Promise<void> {
    const at = Date.now();
    const body = await readBody(req);
    const parsed = await parseApiRequest(req, body, url);
    const contentType = req.headers['content-type'] ?? '';
    const token = bearerToken(req) ?? ('error' in parsed ? undefined : parsed.formToken);
    const tokenKind = this.#kindOf(token);
    const args = 'error' in parsed ? {} : parsed.args;
    const finish = (status: number, response: Json, headers: Record<string, string> = {}): void => {
      this.log.push({
        method,
        args,
        ...(token !== undefined ? { token } : {}),
        ...(tokenKind ? { tokenKind } : {}),
        contentType,
        status,
        response,
        at,
      });
      sendJson(res, status, response, headers);
    };

    const spec = METHODS[method];
    if (!spec) return finish(404, fail('unknown_method', { req_method: method }));
    if ('error' in parsed) return finish(200, fail(parsed.error));
    if (token === undefined) return finish(200, fail('not_authed'));
    if (!tokenKind) return finish(200, fail('invalid_auth'));
    if (tokenKind !== spec.token) return finish(200, fail('not_allowed_token_type'));

    const call = { core: this.#core, args, token };
    const needed = typeof spec.scope === 'function' ? spec.scope(call) : spec.scope;
    const scopeHeaders: Record<string, string> =
      tokenKind === 'bot' ? { 'x-oauth-scopes': this.#core.scopes.join(','), 'x-accepted-oauth-scopes': needed ?? '' } : {};
    if (needed && !this.#core.scopes.includes(needed)) {
      return finish(200, fail('missing_scope', { needed, provided: this.#core.scopes.join(',') }), scopeHeaders);
    }

    const channel = spec.channelArg ? args[spec.channelArg] : undefined;
    const decision = this.#core.rateLimiter.check(method, typeof channel === 'string' ? channel : undefined, at);
    if (decision.limited) {
      return finish(429, fail('ratelimited'), { 'retry-after': String(decision.retryAfterSec) });
    }

    const injected = this.#injected.get(method);
    if (injected && injected.times > 0) {
      injected.times -= 1;
      return finish(200, fail(injected.error), scopeHeaders);
    }

    const response = await spec.handler(call);
    if (parsed.missingCharset) {
      response.warning = 'missing_charset';
      const metadata = (response.response_metadata ?? {}) as Json;
      response.response_metadata = { ...metadata, warnings: ['missing_charset'] };
    }
    const held = this.#held.get(method);
    if (held) {
      this.#held.delete(method);
      held.reached({ method, args, contentType, status: 200, response, at });
      await held.released;
    }
    return finish(200, response, scopeHeaders);
  }

  #kindOf(token: string | undefined): TokenKind | undefined {
    if (token === this.#core.botToken) return 'bot';
    if (token === this.#core.appToken) return 'app';
    return undefined;
  }
}
