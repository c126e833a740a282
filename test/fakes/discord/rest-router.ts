import type { IncomingMessage, ServerResponse } from 'node:http';
import { DiscordErrors, DiscordHttpError } from './errors.ts';
import { parseBody, type UploadedFile } from './multipart.ts';
import type { BucketGroup, RateLimiter, RateLimitHit } from './rate-limiter.ts';
import type { World } from './world.ts';

export interface RouteContext {
  world: World;
  method: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  files: UploadedFile[];
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface RouteDef {
  method: string;
  pattern: string;
  /** Rate limit group; null for routes Discord does not bucket (the interaction callback). */
  group: BucketGroup | null;
  /** 'bot': needs `Authorization: Bot <token>`; 'none': authenticated by the token in the path. */
  auth: 'bot' | 'none';
  handle(context: RouteContext): RouteResult | Promise<RouteResult>;
}

export function route(
  method: string,
  pattern: string,
  group: BucketGroup | null,
  handle: RouteDef['handle'],
  auth: 'bot' | 'none' = 'bot',
): RouteDef {
  return { method, pattern, group, auth, handle };
}

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  bytes: Buffer;
}

export interface RestRequestRecord {
  method: string;
  /** Path after /api/v10, e.g. /channels/123/messages. */
  path: string;
  /** The matched route pattern, e.g. /channels/:channel_id/messages; null when nothing matched. */
  route: string | null;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The JSON body, or the payload_json of a multipart body. */
  body: unknown;
  files: RecordedFile[];
  headers: { authorization: string | null; contentType: string | null; userAgent: string | null; auditLogReason: string | null };
  status: number;
  response: unknown;
  timestamp: number;
}

const API_PREFIX = /^\/api\/v(9|10)(\/.*)$/;

function matchPattern(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i] as string;
    const actual = got[i] as string;
    if (segment.startsWith(':')) {
      if (actual.length === 0) return null;
      params[segment.slice(1)] = decodeURIComponent(actual);
    } else if (segment !== actual) {
      return null;
    }
  }
  return params;
}

function majorParameter(params: Record<string, string>): string {
  if (params.channel_id) return params.channel_id;
  if (params.guild_id) return params.guild_id;
  if (params.webhook_id) return `${params.webhook_id}/${params.webhook_token ?? ''}`;
  return 'global';
}

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Routes /api/v10 requests: authentication, global and per-route rate limits, body parsing, logging. */
export class RestRouter {
  readonly requests: RestRequestRecord[] = [];
  readonly rateLimitHits: RateLimitHit[] = [];
  readonly #world: World;
  readonly #routes: RouteDef[];
  readonly #limiter: RateLimiter;

  constructor(world: World, routes: RouteDef[], limiter: RateLimiter) {
    this.#world = world;
    this.#routes = routes;
    this.#limiter = limiter;
  }

  /** False when the path is not an API path. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const prefixed = API_PREFIX.exec(url.pathname);
    if (!prefixed) return false;
    const path = prefixed[2] as string;
    const method = (req.method ?? 'GET').toUpperCase();
    const raw = await readRaw(req);
    const record: RestRequestRecord = {
      method,
      path,
      route: null,
      params: {},
      query: Object.fromEntries(url.searchParams),
      body: null,
      files: [],
      headers: {
        authorization: req.headers.authorization ?? null,
        contentType: req.headers['content-type'] ?? null,
        userAgent: req.headers['user-agent'] ?? null,
        auditLogReason: (req.headers['x-audit-log-reason'] as string | undefined) ?? null,
      },
      status: 0,
      response: null,
      timestamp: Date.now(),
    };
    this.requests.push(record);
    let headers: Record<string, string> = {};
    let status: number;
    let body: unknown;
    try {
      const found = this.#find(method, path);
      record.route = found.route.pattern;
      record.params = found.params;
      const parsed = await parseBody(raw, req.headers['content-type']).then(
        (value) => ({ value, error: null }),
        (error: unknown) => ({ value: null, error }),
      );
      record.body = parsed.value ? parsed.value.payload : raw.toString('utf8');
      record.files = (parsed.value?.files ?? []).map((f) => ({
        field: f.field,
        filename: f.filename,
        contentType: f.contentType,
        size: f.bytes.length,
        bytes: f.bytes,
      }));
      if (found.route.auth === 'bot' && req.headers.authorization !== `Bot ${this.#world.options.token}`) {
        throw DiscordErrors.unauthorized();
      }
      headers = this.#rateLimit(found.route, method, found.params);
      if (!parsed.value) throw parsed.error;
      const result = await found.route.handle({
        world: this.#world,
        method,
        params: found.params,
        query: url.searchParams,
        body: parsed.value.payload,
        files: parsed.value.files,
      });
      status = result.status;
      body = result.body;
    } catch (error) {
      if (!(error instanceof DiscordHttpError)) throw error;
      status = error.status;
      body = error.body;
      headers = { ...headers, ...error.headers };
    }
    record.status = status;
    record.response = body ?? null;
    if (status === 204 || body === undefined) {
      res.writeHead(status, headers).end();
    } else {
      res.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    }
    this.#world.changed();
    return true;
  }

  #find(method: string, path: string): { route: RouteDef; params: Record<string, string> } {
    let pathMatched = false;
    for (const candidate of this.#routes) {
      const params = matchPattern(candidate.pattern, path);
      if (!params) continue;
      pathMatched = true;
      if (candidate.method === method) return { route: candidate, params };
    }
    throw pathMatched ? DiscordErrors.methodNotAllowed() : DiscordErrors.notFound();
  }

  #rateLimit(route: RouteDef, method: string, params: Record<string, string>): Record<string, string> {
    const now = Date.now();
    if (route.auth === 'bot') {
      const global = this.#limiter.takeGlobal(method, route.pattern, now);
      if (!global.allowed) {
        this.rateLimitHits.push(global.hit);
        throw new DiscordHttpError(429, global.body, global.headers);
      }
    }
    if (!route.group) return {};
    const decision = this.#limiter.take(route.group, method, route.pattern, majorParameter(params), now);
    if (!decision.allowed) {
      this.rateLimitHits.push(decision.hit);
      throw new DiscordHttpError(429, decision.body, decision.headers);
    }
    return decision.headers;
  }
}
