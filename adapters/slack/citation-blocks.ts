import type { Citation } from '../../src/service/types.ts';
import { escapeMrkdwn, linkLabel, linkUrl } from './mrkdwn.ts';

export interface ContextBlock {
  type: 'context';
  elements: Array<{ type: 'mrkdwn'; text: string }>;
}

// Block Kit: a context element holds at most 3000 characters.
const MAX_ELEMENT_CHARS = 3000;
const MAX_TITLE_CHARS = 150;

/** One source line: `<url|[n] title> — site, date`, the same numbering the answer's `[n]` markers use. */
export function citationLine(citation: Citation): string {
  const title = citation.title.trim() || new URL(citation.url).hostname;
  const shortTitle = title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS - 1)}…` : title;
  const date = citation.publishTime ? /^\d{4}-\d{2}-\d{2}/.exec(citation.publishTime)?.[0] ?? citation.publishTime : undefined;
  const meta = [citation.siteName, date].filter((part): part is string => Boolean(part)).map(escapeMrkdwn).join(', ');
  return `<${linkUrl(citation.url)}|${linkLabel(`[${citation.index}] ${shortTitle}`)}>${meta ? ` — ${meta}` : ''}`;
}

/** The numbered sources as context blocks (small grey text under the answer), packed within Block Kit's limits. */
export function citationBlocks(citations: readonly Citation[]): ContextBlock[] {
  if (citations.length === 0) return [];
  const lines = [...citations].sort((a, b) => a.index - b.index).map(citationLine);
  const elements: string[] = [];
  let current = '*Sources*';
  for (const line of lines) {
    if (current.length + 1 + line.length > MAX_ELEMENT_CHARS) {
      elements.push(current);
      current = line;
    } else {
      current = `${current}\n${line}`;
    }
  }
  elements.push(current);
  // Elements of one context block sit side by side; one block each keeps a long list reading downwards.
  return elements.map((text) => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] }));
}
