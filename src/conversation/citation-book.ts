import type { Citation } from '../service/types.ts';

/**
 * The numbered sources of one reply. The capability layer numbers each service response's sources
 * 1..n on its own; a reply built from several responses (tool rounds) needs one list, so later
 * responses' sources join it (deduplicated by URL) and their markers are renumbered to match.
 */
export class CitationBook {
  readonly #citations: Citation[] = [];

  get citations(): Citation[] {
    return [...this.#citations];
  }

  /**
   * Adds a response's sources; returns `map[k]` = the book number of that response's marker `[k+1]`,
   * or null when its numbers are already the book's.
   */
  add(citations: readonly Citation[]): number[] | null {
    const map: number[] = [];
    let identity = true;
    for (const citation of [...citations].sort((a, b) => a.index - b.index)) {
      let index = this.#citations.findIndex((c) => c.url === citation.url) + 1;
      if (index === 0) {
        index = this.#citations.length + 1;
        this.#citations.push({ ...citation, index });
      }
      map[citation.index - 1] = index;
      if (index !== citation.index) identity = false;
    }
    return identity ? null : map;
  }
}

/** Rewrites `[n]` markers in streamed text by a number map, holding back a marker split across deltas. */
export class MarkerRewriter {
  readonly #map: readonly number[];
  #pending = '';

  constructor(map: readonly number[]) {
    this.#map = map;
  }

  push(delta: string): string {
    const text = this.#pending + delta;
    const open = /\[\d{0,4}$/.exec(text);
    this.#pending = open ? open[0] : '';
    const ready = open ? text.slice(0, open.index) : text;
    return this.#rewrite(ready);
  }

  flush(): string {
    const rest = this.#rewrite(this.#pending);
    this.#pending = '';
    return rest;
  }

  #rewrite(text: string): string {
    return text.replace(/\[(\d{1,4})\]/g, (marker, n: string) => {
      const mapped = this.#map[Number(n) - 1];
      return mapped === undefined ? marker : `[${mapped}]`;
    });
  }
}
