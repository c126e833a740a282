import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A transport that lets a server keep at most `max` of its own requests (pings, and any it may send) waiting on
 * Herald's answers: past that each further request is dropped unanswered and `onFlood` is told, so a flood of
 * requests cannot pile up handlers and outgoing answers without end.
 */
export class ServerRequestGuard implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  #waiting = 0;
  readonly #inner: Transport;

  constructor(inner: Transport, max: number, onFlood: () => void) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (isRequest(message)) {
        if (this.#waiting >= max) return onFlood();
        this.#waiting += 1;
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  async send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    try {
      await this.#inner.send(message, options);
    } finally {
      if (isAnswer(message)) this.#waiting -= 1;
    }
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function isRequest(message: JSONRPCMessage): boolean {
  return 'method' in message && 'id' in message;
}

function isAnswer(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}
