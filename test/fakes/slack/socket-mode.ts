/**
 * Slack's Socket Mode endpoint. apps.connections.open hands out a single-use ws:// URL with a ticket; on connect
 * the server sends `hello`, then envelopes {envelope_id, type, payload, accepts_response_payload, …} that the
 * app acknowledges with {envelope_id, payload?}. The server pings; `disconnect` messages ask the client to open a
 * fresh connection, which it does by calling apps.connections.open again.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { eventCallback } from './event-builders.ts';
import { envelopeId as newEnvelopeId } from './ids.ts';
import type { ResponseUrls } from './response-urls.ts';
import { slashCommandFields, type SlashCommandInput } from './slash-command.ts';
import type { Json, Workspace } from './state.ts';

export interface SocketConnection {
  id: number;
  ticket: string;
  openedAt: number;
  closedAt?: number;
  /** How it ended: the client's close code, or 'dropped' when the fake cut it. */
  closeCode?: number | 'dropped';
  pingsFromClient: number;
  pongsFromClient: number;
  /** Non-ack frames the client sent. */
  unexpected: string[];
}

export interface SocketDelivery {
  envelopeId: string;
  type: 'events_api' | 'slash_commands' | 'interactive';
  eventId?: string;
  envelope: Json;
  connectionId: number;
  acked: boolean;
  /** The ack's payload, if the app sent one (slash command / interaction responses). */
  ackPayload?: Json;
  ackMs?: number;
  at: number;
}

export interface SocketDeliveryOptions {
  retryAttempt?: number;
  retryReason?: string;
  sameEventIdAs?: { eventId?: string } | string;
  /** How long to wait for an ack (Slack: 3 s). */
  ackTimeoutMs?: number;
  /** How long to wait for an open connection to deliver on. */
  connectTimeoutMs?: number;
}

export interface SocketModeDeps {
  ws: Workspace;
  verificationToken: string;
  responseUrls: ResponseUrls;
  defaults: { userId: string; channelId: string };
  pingIntervalMs: number;
  ackTimeoutMs: number;
}

interface Live {
  info: SocketConnection;
  socket: WebSocket;
  pinger: NodeJS.Timeout;
}

export class SocketModeServer {
  readonly connections: SocketConnection[] = [];
  readonly deliveries: SocketDelivery[] = [];
  readonly #deps: SocketModeDeps;
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #tickets = new Set<string>();
  readonly #live = new Map<number, Live>();
  readonly #pendingAcks = new Map<string, { delivery: SocketDelivery; started: number; resolve: () => void }>();
  #wsBase = '';

  constructor(deps: SocketModeDeps) {
    this.#deps = deps;
  }

  setBaseUrl(wsBase: string): void {
    this.#wsBase = wsBase;
  }

  issueUrl(): string {
    const ticket = randomUUID();
    this.#tickets.add(ticket);
    return `${this.#wsBase}/link/?ticket=${ticket}&app_id=${this.#deps.ws.identity.appId}`;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !this.#tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, ticket));
  }

  #accept(socket: WebSocket, ticket: string): void {
    const info: SocketConnection = {
      id: this.connections.length + 1,
      ticket,
      openedAt: Date.now(),
      pingsFromClient: 0,
      pongsFromClient: 0,
      unexpected: [],
    };
    this.connections.push(info);
    const pinger = setInterval(() => socket.ping(Buffer.from(`ping-${Date.now()}`)), this.#deps.pingIntervalMs);
    this.#live.set(info.id, { info, socket, pinger });
    socket.on('ping', () => {
      info.pingsFromClient += 1;
    });
    socket.on('pong', () => {
      info.pongsFromClient += 1;
    });
    socket.on('message', (data) => this.#onFrame(info, String(data)));
    socket.on('close', (code) => {
      clearInterval(pinger);
      this.#live.delete(info.id);
      info.closedAt = Date.now();
      info.closeCode ??= code;
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.#live.size,
        debug_info: { host: `applink-fake-${info.id}`, build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: this.#deps.ws.identity.appId },
      }),
    );
    socket.ping(Buffer.from(`ping-${Date.now()}`));
  }

  #onFrame(info: SocketConnection, text: string): void {
    let frame: Json;
    try {
      frame = JSON.parse(text) as Json;
    } catch {
      info.unexpected.push(text);
      return;
    }
    const pending = typeof frame.envelope_id === 'string' ? this.#pendingAcks.get(frame.envelope_id) : undefined;
    if (!pending) {
      info.unexpected.push(text);
      return;
    }
    this.#pendingAcks.delete(frame.envelope_id as string);
    pending.delivery.acked = true;
    pending.delivery.ackMs = performance.now() - pending.started;
    const payload = frame.payload;
    if (typeof payload === 'object' && payload !== null && Object.keys(payload).length > 0) {
      pending.delivery.ackPayload = payload as Json;
    }
    pending.resolve();
  }

  /** The newest open connection, waiting for one if the client is (re)connecting. */
  async #target(timeoutMs: number): Promise<Live> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const open = [...this.#live.values()].filter((l) => l.socket.readyState === l.socket.OPEN);
      const newest = open.at(-1);
      if (newest) return newest;
      if (Date.now() > deadline) throw new Error(`no Socket Mode connection within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async #deliver(type: SocketDelivery['type'], payload: Json, extra: Json, options: SocketDeliveryOptions): Promise<SocketDelivery> {
    const target = await this.#target(options.connectTimeoutMs ?? 10_000);
    const envelopeId = newEnvelopeId();
    const envelope: Json = { envelope_id: envelopeId, payload, type, ...extra };
    const delivery: SocketDelivery = {
      envelopeId,
      type,
      ...(type === 'events_api' ? { eventId: String(payload.event_id) } : {}),
      envelope,
      connectionId: target.info.id,
      acked: false,
      at: Date.now(),
    };
    this.deliveries.push(delivery);
    const acked = new Promise<void>((resolve) => {
      this.#pendingAcks.set(envelopeId, { delivery, started: performance.now(), resolve });
    });
    target.socket.send(JSON.stringify(envelope));
    const timeoutMs = options.ackTimeoutMs ?? this.#deps.ackTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([acked, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    this.#pendingAcks.delete(envelopeId);
    return delivery;
  }

  deliverEvent(event: Json, options: SocketDeliveryOptions = {}): Promise<SocketDelivery> {
    const sameAs = options.sameEventIdAs;
    const reused = typeof sameAs === 'string' ? sameAs : sameAs?.eventId;
    const payload = eventCallback(this.#deps.ws, this.#deps.verificationToken, event, reused);
    return this.#deliver(
      'events_api',
      payload,
      {
        accepts_response_payload: false,
        retry_attempt: options.retryAttempt ?? 0,
        retry_reason: options.retryReason ?? (options.retryAttempt ? 'timeout' : ''),
      },
      options,
    );
  }

  sendSlashCommand(command: SlashCommandInput, options: SocketDeliveryOptions = {}): Promise<SocketDelivery> {
    const payload: Json = slashCommandFields(this.#deps, command);
    return this.#deliver('slash_commands', payload, { accepts_response_payload: true }, options);
  }

  sendInteractive(payload: Json, options: SocketDeliveryOptions = {}): Promise<SocketDelivery> {
    const acceptsResponse = payload.type === 'view_submission' || payload.type === 'block_suggestion';
    return this.#deliver('interactive', payload, { accepts_response_payload: acceptsResponse }, options);
  }

  /** Sends {type:'disconnect', reason} on every open connection, as Slack does before recycling one. */
  requestDisconnect(reason: 'refresh_requested' | 'warning' | 'link_disabled' = 'refresh_requested'): void {
    for (const live of this.#live.values()) {
      live.socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: `applink-fake-${live.info.id}` } }));
    }
  }

  /** Cuts every open connection without a close frame, as a network failure would. */
  dropConnections(): void {
    for (const live of this.#live.values()) {
      live.info.closeCode = 'dropped';
      live.socket.terminate();
    }
  }

  openConnections(): SocketConnection[] {
    return [...this.#live.values()].map((l) => l.info);
  }

  /** Closes open connections with 1001 (going away), cutting any that do not finish the handshake promptly. */
  async close(): Promise<void> {
    const closing = [...this.#live.values()].map(
      (live) =>
        new Promise<void>((resolve) => {
          clearInterval(live.pinger);
          const cut = setTimeout(() => live.socket.terminate(), 200);
          live.socket.once('close', () => {
            clearTimeout(cut);
            resolve();
          });
          live.socket.close(1001, 'server shutting down');
        }),
    );
    await Promise.all(closing);
    this.#live.clear();
    this.#wss.close();
  }
}
