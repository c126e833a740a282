import MiniSearch from 'minisearch';
import type { WorkspaceMessage } from './workspace-history.ts';

/** ICU's dictionary segments Chinese and Japanese into words; other scripts split at word boundaries as usual. */
const WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The words of a text, for the index and the query alike: CJK words also as their character pairs, for recall. */
export function searchTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const { segment, isWordLike } of WORDS.segment(text.normalize('NFKC'))) {
    if (!isWordLike) continue;
    tokens.push(segment);
    if (segment.length > 2 && CJK.test(segment)) for (let i = 0; i + 2 <= segment.length; i += 1) tokens.push(segment.slice(i, i + 2));
  }
  return tokens;
}

const MIN_SHARE_OF_BEST = 0.25;

/**
 * The messages that best match `query`, best first (BM25+ over text and author, newer first among equals);
 * an empty query gives the newest. At most `limit`.
 */
export function searchMessages(messages: readonly WorkspaceMessage[], query: string, limit: number): WorkspaceMessage[] {
  if (searchTokens(query).length === 0) return messages.slice(-limit).reverse();
  const index = new MiniSearch<WorkspaceMessage & { key: number }>({
    idField: 'key',
    fields: ['text', 'author'],
    tokenize: searchTokens,
    processTerm: (term) => term.toLowerCase(),
  });
  index.addAll(messages.map((m, key) => ({ ...m, key })));
  const hits = index.search(query, { boost: { text: 2 }, prefix: (term) => term.length >= 4, fuzzy: (term) => (term.length >= 6 ? 0.2 : false) });
  // Words as common as "the" match nearly everything: a hit far below the best one is noise, not a source.
  const floor = (hits[0]?.score ?? 0) * MIN_SHARE_OF_BEST;
  return hits
    .filter((hit) => hit.score >= floor)
    .map((hit) => ({ score: hit.score, message: messages[hit.id as number]! }))
    .sort((a, b) => b.score - a.score || b.message.sentAt - a.message.sentAt)
    .slice(0, limit)
    .map((hit) => hit.message);
}
