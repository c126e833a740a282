import MiniSearch from 'minisearch';
import type { WorkspaceMessage } from './workspace-history.ts';

/** ICU's dictionary segments Chinese and Japanese into words; it is slow, so only runs with CJK in them go to it. */
const CJK_WORDS = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Letters and digits, with inner dots and apostrophes (v2.1, don't). */
const RUN = /[\p{L}\p{N}\p{M}]+(?:[.'’][\p{L}\p{N}\p{M}]+)*/gu;

/** The words of a text, for the index and the query alike: CJK words also as their character pairs, for recall. */
export function searchTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const [run] of text.normalize('NFKC').matchAll(RUN)) {
    if (!CJK.test(run)) {
      tokens.push(run);
      continue;
    }
    for (const { segment, isWordLike } of CJK_WORDS.segment(run)) {
      if (!isWordLike) continue;
      tokens.push(segment);
      if (segment.length > 2 && CJK.test(segment)) for (let i = 0; i + 2 <= segment.length; i += 1) tokens.push(segment.slice(i, i + 2));
    }
  }
  return tokens;
}

const MIN_SHARE_OF_BEST = 0.25;

type MessageIndex = MiniSearch<{ key: number; text: string; author: string }>;
/** An index per list of messages: the searches of one answer over one cached read build it once. */
const indexes = new WeakMap<readonly WorkspaceMessage[], MessageIndex>();

function indexOf(messages: readonly WorkspaceMessage[]): MessageIndex {
  let index = indexes.get(messages);
  if (!index) {
    index = new MiniSearch({ idField: 'key', fields: ['text', 'author'], tokenize: searchTokens, processTerm: (term) => term.toLowerCase() });
    index.addAll(messages.map((m, key) => ({ key, text: m.text, author: m.author })));
    indexes.set(messages, index);
  }
  return index;
}

/**
 * The messages that best match `query`, best first (BM25+ over text and author, newer first among equals);
 * an empty query gives the newest. At most `limit`, none that `skip` rules out.
 */
export function searchMessages(
  messages: readonly WorkspaceMessage[],
  query: string,
  limit: number,
  skip: (message: WorkspaceMessage) => boolean = () => false,
): WorkspaceMessage[] {
  if (searchTokens(query).length === 0)
    return messages
      .filter((m) => !skip(m))
      .slice(-limit)
      .reverse();
  const hits = indexOf(messages)
    .search(query, { boost: { text: 2 }, prefix: (term) => term.length >= 4, fuzzy: (term) => (term.length >= 6 ? 0.2 : false) })
    .map((hit) => ({ score: hit.score, message: messages[hit.id as number]! }))
    .filter((hit) => !skip(hit.message));
  // Words as common as "the" match nearly everything: a hit far below the best one is noise, not a source.
  const floor = (hits[0]?.score ?? 0) * MIN_SHARE_OF_BEST;
  return hits
    .filter((hit) => hit.score >= floor)
    .sort((a, b) => b.score - a.score || b.message.sentAt - a.message.sentAt)
    .slice(0, limit)
    .map((hit) => hit.message);
}
