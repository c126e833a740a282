import { createParser, type EventSourceParser } from 'eventsource-parser';
import { ResponseFormatError } from './errors.ts';

export type SseHandler = (event: string | undefined, data: string) => void;

const STREAM = { stream: true } as const;
/** Far above any real event; the parser would otherwise hold a line or event that never ends in memory. */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

/**
 * Bytes in, SSE events out. The UTF-8 decoder keeps a character cut between two network chunks,
 * the parser keeps a line cut between them; CRLF, CR and `:` comments are handled by the parser.
 */
export class SseDecoder {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #parser: EventSourceParser;
  /** Characters fed since the last event: what the parser may be holding. */
  #sinceEvent = 0;

  constructor(onEvent: SseHandler) {
    this.#parser = createParser({
      onEvent: (message) => {
        this.#sinceEvent = 0;
        onEvent(message.event, message.data);
      },
    });
  }

  push(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, STREAM);
    this.#sinceEvent += text.length;
    this.#parser.feed(text);
    if (this.#sinceEvent > MAX_EVENT_CHARS) throw new ResponseFormatError('The AI service sent a malformed stream (an event without end).');
  }

  /** At a clean end of the body: an event the server did not close with a blank line still counts. */
  end(): void {
    this.#parser.feed(`${this.#decoder.decode()}\n\n`);
  }
}
