import { MarkerRewriter } from '../service/citations.ts';
import type { Citation } from '../service/types.ts';
import type { WorkspaceMessage } from './workspace-history.ts';

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
  readonly #rewriter = new MarkerRewriter((n) => this.#source(n) ?? null);

  constructor(messages: readonly WorkspaceMessage[]) {
    this.#messages = messages;
  }

  /** The sources cited so far, numbered as the rewritten text cites them. */
  get citations(): Citation[] {
    return [...this.#citations];
  }

  push(chunk: string): string {
    return this.#rewriter.push(chunk);
  }

  flush(): string {
    return this.#rewriter.flush();
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
