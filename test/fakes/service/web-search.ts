import type { WebSearchTool } from './chat-request.ts';

export interface Citation {
  type: 'url_citation';
  url: string;
  title: string;
  summary: string;
  site_name: string;
  publish_time: string;
  logo_url: string;
}

export interface SearchResult {
  query: string;
  keywords: string[];
  /** Distinct sources plus one repeat of the first URL, so clients must dedupe. */
  citations: Citation[];
  usage: { tool_usage: number; page_usage: number };
}

const freshInfo = /\b(news|today|latest|search)\b/i;
const stopWords = new Set([
  'the',
  'and',
  'for',
  'what',
  'whats',
  'about',
  'with',
  'from',
  'that',
  'this',
  'are',
  'is',
  'was',
  'how',
  'who',
  'please',
]);
/** Input tokens added per page read into the prompt. */
export const tokensPerPage = 200;

/**
 * Whether the model searches: always with `force_search: true`; otherwise ("intent recognition")
 * only when the message contains one of the words news, today, latest, search.
 */
export function shouldSearch(tool: WebSearchTool, text: string): boolean {
  return tool.forceSearch || freshInfo.test(text);
}

/**
 * Deterministic results: `limit` (default 3, at most 10) distinct sources on example.com hosts and
 * one duplicate of the first; `max_keyword` (default 3) caps the keyword searches, each counted in
 * tool_usage.
 */
export function search(tool: WebSearchTool, text: string): SearchResult {
  const query = text.trim().slice(0, 80);
  const candidates = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].filter((w) => !stopWords.has(w));
  const keywords = candidates.slice(0, Math.max(1, tool.maxKeyword ?? 3));
  if (keywords.length === 0) keywords.push(query || 'search');
  const count = Math.min(Math.max(1, tool.limit ?? 3), 10);
  const citations: Citation[] = [];
  for (let i = 1; i <= count; i += 1) {
    const host = `news${i}.example.com`;
    citations.push({
      type: 'url_citation',
      url: `https://${host}/articles/${encodeURIComponent(keywords.join('-'))}`,
      title: `${query} — source ${i}`,
      summary: `Source ${i} summarises what is known about ${query}.`,
      site_name: `Example News ${i}`,
      publish_time: `2025-01-${String(i).padStart(2, '0')}T08:30:00+08:00`,
      logo_url: `https://${host}/logo.png`,
    });
  }
  citations.push({ ...citations[0]! });
  return { query, keywords, citations, usage: { tool_usage: keywords.length, page_usage: count } };
}

/** Answer text citing every annotation by its 1-based position, the duplicate included. */
export function searchReply(result: SearchResult, location: WebSearchTool['location']): string {
  const distinct = result.citations.length - 1;
  const sentences = [];
  for (let i = 1; i <= distinct; i += 1) sentences.push(`Source ${i} reports on ${result.query} [${i}].`);
  sentences.push(`This is confirmed again in [${distinct + 1}].`);
  const place = location && [location.city, location.region, location.country].filter(Boolean).join(', ');
  if (place) sentences.push(`(Searched near ${place}.)`);
  return `Here is what I found about "${result.query}": ${sentences.join(' ')}`;
}
