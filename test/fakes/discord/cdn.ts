import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AttachmentRecord } from './records.ts';
import type { Store } from './store.ts';

export interface CdnRequestRecord {
  path: string;
  status: number;
  attachmentId: string | null;
  timestamp: number;
  /** Once the response is over: `complete` when every byte went out, `client-closed` when the client hung up first. */
  ended?: 'complete' | 'client-closed';
}

/** A transfer held after its first bytes, as over a stalled network, until released. */
export interface HeldTransfer {
  release(): void;
}

const CONTENT_GONE = 'This content is no longer available.';

/** Serves attachments like cdn.discordapp.com: signed URLs (ex/is/hm) that expire. */
export class Cdn {
  readonly requests: CdnRequestRecord[] = [];
  readonly #baseUrl: string;
  readonly #secret = randomBytes(32);
  readonly #ttlMs: number;
  readonly #store: Store;
  readonly #holds = new Map<string, { afterBytes: number; released: Promise<void>; release(): void }>();

  constructor(baseUrl: string, store: Store, ttlMs: number) {
    this.#baseUrl = baseUrl;
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /** Downloads of `attachmentId` send `afterBytes` bytes, then nothing more until `release()`. */
  hold(attachmentId: string, afterBytes: number): HeldTransfer {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#holds.set(attachmentId, { afterBytes, released, release });
    return { release };
  }

  url(attachment: AttachmentRecord, now: number = Date.now()): string {
    const path = attachmentPath(attachment);
    const issued = Math.floor(now / 1000).toString(16);
    const expires = Math.floor((now + this.#ttlMs) / 1000).toString(16);
    return `${this.#baseUrl}${path}?ex=${expires}&is=${issued}&hm=${this.#sign(path, expires, issued)}&`;
  }

  /** Answers GET/HEAD for /attachments/... and /ephemeral-attachments/...; false when the path is not a CDN path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const match = /^\/(attachments|ephemeral-attachments)\/(\d+)\/(\d+)\/([^/]+)$/.exec(url.pathname);
    if (!match) return false;
    const [, kind, scope, id, filename] = match as unknown as [string, string, string, string, string];
    const attachment = this.#store.attachments.get(id);
    const found =
      attachment &&
      attachment.scope === scope &&
      attachment.filename === decodeURIComponent(filename) &&
      (kind === 'ephemeral-attachments') === attachment.ephemeral;
    const record: CdnRequestRecord = { path: url.pathname, status: 404, attachmentId: found ? id : null, timestamp: Date.now() };
    this.requests.push(record);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      record.status = 405;
      res.writeHead(405).end();
      return true;
    }
    if (!found || !this.#validSignature(url)) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(CONTENT_GONE);
      return true;
    }
    record.status = 200;
    res.writeHead(200, {
      'Content-Type': attachment.contentType ?? 'application/octet-stream',
      'Content-Length': attachment.bytes.length,
      'Cache-Control': 'public, max-age=31536000',
    });
    res.on('close', () => (record.ended = res.writableFinished ? 'complete' : 'client-closed'));
    const held = this.#holds.get(attachment.id);
    if (req.method === 'HEAD' || !held) {
      res.end(req.method === 'HEAD' ? undefined : attachment.bytes);
      return true;
    }
    res.write(attachment.bytes.subarray(0, held.afterBytes));
    void held.released.then(() => {
      if (!res.destroyed) res.end(attachment.bytes.subarray(held.afterBytes));
    });
    return true;
  }

  #validSignature(url: URL): boolean {
    const expires = url.searchParams.get('ex');
    const issued = url.searchParams.get('is');
    const signature = url.searchParams.get('hm');
    if (!expires || !issued || !signature) return false;
    if (Number.parseInt(expires, 16) * 1000 < Date.now()) return false;
    const expected = Buffer.from(this.#sign(url.pathname, expires, issued));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  #sign(path: string, expires: string, issued: string): string {
    return createHmac('sha256', this.#secret).update(`${path}\n${expires}\n${issued}`).digest('hex');
  }
}

function attachmentPath(attachment: AttachmentRecord): string {
  const kind = attachment.ephemeral ? 'ephemeral-attachments' : 'attachments';
  return `/${kind}/${attachment.scope}/${attachment.id}/${encodeURIComponent(attachment.filename)}`;
}
