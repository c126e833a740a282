import { createParser, type EventSourceParser } from 'eventsource-parser';

export type SseHandler = (event: string | undefined, data: string) => void;

const STREAM = { stream: true } as const;

/**
 * Bytes in, SSE events out. The UTF-8 decoder keeps a character cut between two network chunks,
 * the parser keeps a line cut between them; CRLF, CR and `:` comments are handled by the parser.
 */
export class SseDecoder {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #parser: EventSourceParser;

  constructor(onEvent: SseHandler) {
    this.#parser = createParser({ onEvent: (message) => onEvent(message.event, message.data) });
  }

  push(bytes: Uint8Array): void {
    this.#parser.feed(this.#decoder.decode(bytes, STREAM));
  }

  /** At a clean end of the body: an event the server did not close with a blank line still counts. */
  end(): void {
    this.#parser.feed(`${this.#decoder.decode()}\n\n`);
  }
}
