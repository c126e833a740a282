import zlib from 'node:zlib';
import { WebSocket } from 'ws';
import type { Json } from './records.ts';

export type Compression = 'zlib-stream' | 'identify' | null;

export interface GatewayPayload {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}

/** One websocket to the fake gateway; serializes and (optionally) compresses outgoing payloads in order. */
export class GatewayConnection {
  readonly ws: WebSocket;
  readonly path: string;
  readonly openedAt = Date.now();
  sessionId: string | null = null;
  compression: Compression;
  closedAt: number | null = null;
  closeCode: number | null = null;
  closedBy: 'client' | 'server' | null = null;
  /** Timestamps of received payloads within the current minute, for the 120/60 s send limit. */
  readonly received: number[] = [];
  #deflate: zlib.Deflate | null = null;
  #queue: Promise<void> = Promise.resolve();

  constructor(ws: WebSocket, path: string, compression: Compression) {
    this.ws = ws;
    this.path = path;
    this.compression = compression;
    if (compression === 'zlib-stream') this.#deflate = zlib.createDeflate({ chunkSize: 65535 });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(payload: GatewayPayload | Json): void {
    const text = JSON.stringify(payload);
    this.#queue = this.#queue.then(async () => {
      if (!this.open) return;
      if (this.compression === 'zlib-stream') this.ws.send(await this.#streamChunk(text));
      else if (this.compression === 'identify') this.ws.send(zlib.deflateSync(text));
      else this.ws.send(text);
    });
  }

  /** Resolves after everything queued so far went out. */
  flushed(): Promise<void> {
    return this.#queue;
  }

  close(code: number, reason = ''): void {
    this.closedBy ??= 'server';
    void this.#queue.then(() => {
      if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, reason);
    });
  }

  terminate(): void {
    this.closedBy ??= 'server';
    this.ws.terminate();
  }

  /** zlib-stream: one shared deflate context, each message ends with a Z_SYNC_FLUSH (00 00 ff ff). */
  #streamChunk(text: string): Promise<Buffer> {
    const deflate = this.#deflate as zlib.Deflate;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const onData = (chunk: Buffer) => chunks.push(chunk);
      deflate.on('data', onData);
      deflate.write(text);
      deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        deflate.off('data', onData);
        resolve(Buffer.concat(chunks));
      });
    });
  }
}
