import type { APIEmbed } from 'discord.js';
import type { Citation } from '../../src/service/types.ts';

const DESCRIPTION_LIMIT = 4096;
const TITLE_CHARS = 200;
const SOURCES_COLOR = 0x5865f2;

function linkText(title: string): string {
  const short = title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title;
  return (
    short
      .replace(/([\\[\]*_~`|>])/g, '\\$1')
      .replace(/\s+/g, ' ')
      .trim() || 'source'
  );
}

function linkTarget(url: string): string {
  return url.replace(/[()\s<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

function publishDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value.slice(0, 32) : date.toISOString().slice(0, 10);
}

const EXCERPT_CHARS = 80;

/** A message of the workspace: `#channel · author` linking to it, the time in the reader's own zone, then its gist. */
function messageLine(citation: Citation, message: NonNullable<Citation['message']>): string {
  const label = linkText(`#${message.channelName} · ${message.author}`);
  const gist = citation.title.length > EXCERPT_CHARS ? `${citation.title.slice(0, EXCERPT_CHARS - 1)}…` : citation.title;
  const excerpt = gist.trim() ? ` — ${linkText(gist)}` : '';
  return `**${citation.index}.** [${label}](${linkTarget(citation.url)}) · <t:${Math.floor(message.sentAt / 1000)}:f>${excerpt}`;
}

function line(citation: Citation): string {
  if (citation.message) return messageLine(citation, citation.message);
  const meta = [citation.siteName?.trim(), publishDate(citation.publishTime)].filter(Boolean).join(' · ');
  return `**${citation.index}.** [${linkText(citation.title || citation.url)}](${linkTarget(citation.url)})${meta ? ` — ${meta}` : ''}`;
}

/** The numbered sources of a reply as one embed: each title links to its page, with site name and date; a message links to itself. */
export function sourcesEmbed(citations: readonly Citation[]): APIEmbed {
  const lines: string[] = [];
  let length = 0;
  const sorted = [...citations].sort((a, b) => a.index - b.index);
  for (const [i, citation] of sorted.entries()) {
    const next = line(citation);
    const more = `… and ${sorted.length - i} more`;
    if (length + next.length + 1 + more.length > DESCRIPTION_LIMIT) {
      lines.push(more);
      break;
    }
    lines.push(next);
    length += next.length + 1;
  }
  return { title: 'Sources', color: SOURCES_COLOR, description: lines.join('\n') };
}
