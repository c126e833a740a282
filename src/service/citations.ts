import type { Citation } from './types.ts';

export interface NormalizedCitations {
  /** Unique by URL, numbered 1..n in order of first appearance. */
  citations: Citation[];
  /** `remap[k]` is the new number for the service's marker `[k+1]`; 0 when that entry had no URL. */
  remap: number[];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The service numbers its `[n]` markers by position in the annotations array, duplicates included;
 * Herald shows each source once, so positions are folded onto the first entry with the same URL.
 */
export function normalizeCitations(annotations: unknown): NormalizedCitations {
  const citations: Citation[] = [];
  const remap: number[] = [];
  if (!Array.isArray(annotations)) return { citations, remap };
  const byUrl = new Map<string, Citation>();
  for (const item of annotations) {
    const a = (item ?? {}) as Record<string, unknown>;
    const url = text(a.url)?.trim();
    if (!url) {
      remap.push(0);
      continue;
    }
    let citation = byUrl.get(url);
    if (citation) {
      citation.title ||= text(a.title) ?? '';
      citation.summary ??= text(a.summary);
      citation.siteName ??= text(a.site_name);
      citation.publishTime ??= text(a.publish_time);
      citation.logoUrl ??= text(a.logo_url);
    } else {
      citation = { index: citations.length + 1, url, title: text(a.title) ?? '' };
      const summary = text(a.summary);
      const siteName = text(a.site_name);
      const publishTime = text(a.publish_time);
      const logoUrl = text(a.logo_url);
      if (summary) citation.summary = summary;
      if (siteName) citation.siteName = siteName;
      if (publishTime) citation.publishTime = publishTime;
      if (logoUrl) citation.logoUrl = logoUrl;
      byUrl.set(url, citation);
      citations.push(citation);
    }
    remap.push(citation.index);
  }
  for (const c of citations) if (!c.title) c.title = c.siteName ?? c.url;
  return { citations, remap };
}

/** True when no marker needs rewriting (no duplicates and no entries without a URL). */
export function isIdentityRemap(remap: readonly number[]): boolean {
  for (let i = 0; i < remap.length; i++) if (remap[i] !== i + 1) return false;
  return true;
}

/** Not after a word character or `)`, so code such as `items[2]` or `f(x)[1]` is left alone. */
const MARKER = /(?<![\w)])\[(\d{1,5}(?:\s*,\s*\d{1,5})*)\]/g;

/** Every source number the `[n]` and `[n, m]` markers of `text` cite. */
export function citedNumbers(text: string): Set<number> {
  const cited = new Set<number>();
  for (const [, list] of text.matchAll(MARKER)) for (const n of list!.split(',')) cited.add(Number(n.trim()));
  return cited;
}

/** A marker number's new number: a number, null to drop it, undefined to leave it as written. */
type MarkerMap = (n: number) => number | null | undefined;

/**
 * Rewrites `[n]` and `[n, m]` markers through `map`; a marker whose numbers `map` all leaves as written stays whole,
 * and one whose numbers are all dropped goes.
 */
function rewriteMarkers(input: string, map: MarkerMap): string {
  if (input.indexOf('[') === -1) return input;
  return input.replace(MARKER, (whole, list: string) => {
    const numbers: number[] = [];
    let known = false;
    for (const part of list.split(',')) {
      const n = Number(part.trim());
      const mapped = map(n);
      if (mapped !== undefined) known = true;
      const shown = mapped === undefined ? n : mapped;
      if (shown !== null && !numbers.includes(shown)) numbers.push(shown);
    }
    if (!known) return whole;
    return numbers.length === 0 ? '' : `[${numbers.join(', ')}]`;
  });
}

/** The service's numbering to the deduplicated one: numbers outside the annotations stay, sources without a URL go. */
export function markerRemap(remap: readonly number[]): MarkerMap {
  return (n) => (n >= 1 && n <= remap.length ? remap[n - 1] || null : undefined);
}

/** Rewrites `[n]` and `[n, m]` markers from the service's numbering to the deduplicated one (see `markerRemap`). */
export function remapCitationMarkers(input: string, remap: readonly number[]): string {
  return isIdentityRemap(remap) ? input : rewriteMarkers(input, markerRemap(remap));
}

/** Longest text held back while waiting to see whether a trailing `[` starts a marker. */
const MAX_HELD = 40;
const PARTIAL_MARKER = /^\[[\d,\s]*$/;

/** Applies `rewriteMarkers` to streamed text, holding back a marker cut between two deltas. */
export class MarkerRewriter {
  readonly #map: MarkerMap;
  #held = '';
  /** The character before a marker matters (see MARKER), so each piece is rewritten after the previous one's last. */
  #last = '';

  constructor(map: MarkerMap) {
    this.#map = map;
  }

  push(chunk: string): string {
    let s = this.#held + chunk;
    this.#held = '';
    const open = s.lastIndexOf('[');
    if (open !== -1 && s.length - open <= MAX_HELD && PARTIAL_MARKER.test(s.slice(open))) {
      this.#held = s.slice(open);
      s = s.slice(0, open);
    }
    return this.#rewrite(s);
  }

  flush(): string {
    const rest = this.#rewrite(this.#held);
    this.#held = '';
    return rest;
  }

  #rewrite(s: string): string {
    if (s === '') return s;
    const out = rewriteMarkers(this.#last + s, this.#map).slice(this.#last.length);
    this.#last = s[s.length - 1]!;
    return out;
  }
}
