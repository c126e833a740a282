import type { Citation } from '../service/types.ts';
import type { WorkspaceMessage } from './workspace-history.ts';

/** `[n]` or `[n, m]`, not after a word character or `)`, so code such as `items[2]` is left alone. */
const MARKER = /(?<![\w)])\[(\d{1,5}(?:\s*,\s*\d{1,5})*)\]/g;
const PARTIAL_MARKER = /^\[[\d,\s]*$/;
/** Longest text held back while waiting to see whether a trailing `[` starts a marker. */
const MAX_HELD = 40;
const TITLE_CHARS = 100;

/**
 * Turns a summary's markers, which number the messages of its prompt ([1] is the oldest message given), into the
 * reply's sources numbered 1..k in order of first appearance, as the text streams. A marker naming no message given
 * is dropped, so the answer never cites what it was not shown.
 */
export class SummaryMarkers {
  readonly #messages: readonly WorkspaceMessage[];
  readonly #sourceOf = new Map<number, number>();
  readonly #citations: Citation[] = [];
  #held = '';
  #last = '';

  constructor(messages: readonly WorkspaceMessage[]) {
    this.#messages = messages;
  }

  /** The sources cited so far, numbered as the rewritten text cites them. */
  get citations(): Citation[] {
    return [...this.#citations];
  }

  push(chunk: string): string {
    let text = this.#held + chunk;
    this.#held = '';
    const open = text.lastIndexOf('[');
    if (open !== -1 && text.length - open <= MAX_HELD && PARTIAL_MARKER.test(text.slice(open))) {
      this.#held = text.slice(open);
      text = text.slice(0, open);
    }
    return this.#rewrite(text);
  }

  flush(): string {
    const rest = this.#rewrite(this.#held);
    this.#held = '';
    return rest;
  }

  #rewrite(text: string): string {
    if (text === '') return text;
    const before = this.#last;
    this.#last = text[text.length - 1]!;
    const out = (before + text).replace(MARKER, (_whole, list: string) => {
      const numbers: number[] = [];
      for (const part of list.split(',')) {
        const source = this.#source(Number(part.trim()));
        if (source !== undefined && !numbers.includes(source)) numbers.push(source);
      }
      return numbers.length === 0 ? '' : `[${numbers.join(', ')}]`;
    });
    return out.slice(before.length);
  }

  /** The reply's number for the prompt's message `n`, assigned when first cited. */
  #source(n: number): number | undefined {
    const message = this.#messages[n - 1];
    if (!message) return undefined;
    let source = this.#sourceOf.get(n);
    if (source === undefined) {
      source = this.#citations.length + 1;
      this.#sourceOf.set(n, source);
      this.#citations.push(messageCitation(message, source));
    }
    return source;
  }
}

export function messageCitation(message: WorkspaceMessage, index: number): Citation {
  const line = message.text.replace(/\s+/g, ' ').trim();
  return {
    index,
    url: message.link,
    title: line === '' ? `${message.author} in #${message.channelName}` : line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line,
    message: { channelName: message.channelName, author: message.author, sentAt: message.sentAt },
  };
}
