import type { Citation } from '../../src/service/types.ts';
import { escapeMrkdwn, linkLabel, linkUrl } from './mrkdwn.ts';

export interface ContextBlock {
  type: 'context';
  elements: Array<{ type: 'mrkdwn'; text: string }>;
}

// Block Kit: a context element holds at most 3000 characters.
const MAX_ELEMENT_CHARS = 3000;
const MAX_TITLE_CHARS = 150;
const MAX_META_CHARS = 100;
/** Escaped, a line stays within one element even at these caps; a source with a longer link is listed without it. */
const MAX_URL_CHARS = 1000;

/**
 * One source line: `<url|[n] title> — site, date`, the same numbering the answer's `[n]` markers use. Total over
 * whatever the service sends: a source without an absolute http(s) URL is listed as plain text.
 */
export function citationLine(citation: Citation): string {
  if (citation.message) return messageLine(citation, citation.message);
  const url = typeof citation.url === 'string' ? citation.url.trim() : '';
  const host = webHost(url);
  const title = (typeof citation.title === 'string' ? citation.title.trim() : '') || host || 'source';
  const shortTitle = title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS - 1)}…` : title;
  const label = `[${citation.index}] ${shortTitle}`;
  const date = typeof citation.publishTime === 'string' ? (/^\d{4}-\d{2}-\d{2}/.exec(citation.publishTime)?.[0] ?? citation.publishTime) : undefined;
  const meta = [citation.siteName, date]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .map((part) => escapeMrkdwn(part.slice(0, MAX_META_CHARS)))
    .join(', ');
  const target = host ? linkUrl(url) : '';
  const link = target && target.length <= MAX_URL_CHARS ? `<${target}|${linkLabel(label)}>` : linkLabel(label);
  return `${link}${meta ? ` — ${meta}` : ''}`;
}

const MAX_EXCERPT_CHARS = 80;

/**
 * A message of the workspace: `<permalink|[n] #channel · author>`, its time in the reader's own zone (Slack's date
 * token, with UTC as the fallback text), then its gist.
 */
function messageLine(citation: Citation, message: NonNullable<Citation['message']>): string {
  const url = typeof citation.url === 'string' ? citation.url.trim() : '';
  const label = linkLabel(`[${citation.index}] #${message.channelName.slice(0, MAX_META_CHARS)} · ${message.author.slice(0, MAX_META_CHARS)}`);
  const target = webHost(url) ? linkUrl(url) : '';
  const link = target && target.length <= MAX_URL_CHARS ? `<${target}|${label}>` : label;
  const seconds = Math.floor(message.sentAt / 1000);
  const utc = `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const title = typeof citation.title === 'string' ? citation.title.trim() : '';
  const gist = title.length > MAX_EXCERPT_CHARS ? `${title.slice(0, MAX_EXCERPT_CHARS - 1)}…` : title;
  return `${link} · <!date^${seconds}^{date_short_pretty} {time}|${utc}>${gist ? ` — ${escapeMrkdwn(gist)}` : ''}`;
}

/** The host of an absolute http(s) URL; undefined for anything else (relative, other schemes, garbage). */
function webHost(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.hostname : undefined;
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
