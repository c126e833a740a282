import { citedNumbers } from '../service/citations.ts';
import type { Citation } from '../service/types.ts';

/**
 * The numbered sources of one reply. The capability layer numbers each service response's sources
 * 1..n on its own; a reply built from several responses (tool rounds) needs one list, so later
 * responses' sources join it (deduplicated by URL) and their markers are renumbered to match.
 */
export class ReplyCitations {
  readonly #citations: Citation[] = [];

  get list(): Citation[] {
    return [...this.#citations];
  }

  /**
   * The sources to show under `answer`: every web page the service cited, and the workspace messages a tool found
   * only when the answer cites them, so a search's other matches are not passed off as sources. Numbers are kept.
   */
  shownWith(answer: string): Citation[] {
    const cited = citedNumbers(answer);
    return this.#citations.filter((c) => c.message === undefined || cited.has(c.index));
  }

  /**
   * Adds a response's sources; returns the remap for its markers (as `remapCitationMarkers` takes it: `remap[k]` is
   * the reply's number for the response's `[k+1]`, 0 where it listed no such source), or null when they already match.
   */
  add(citations: readonly Citation[]): number[] | null {
    const sorted = [...citations].sort((a, b) => a.index - b.index);
    const remap = new Array<number>(sorted.at(-1)?.index ?? 0).fill(0);
    for (const citation of sorted) {
      let index = this.#citations.findIndex((c) => c.url === citation.url) + 1;
      if (index === 0) {
        index = this.#citations.length + 1;
        this.#citations.push({ ...citation, index });
      }
      remap[citation.index - 1] = index;
    }
    return remap.every((n, k) => n === k + 1) ? null : remap;
  }
}
