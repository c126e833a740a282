// Code blocks (closed, or still open at the end of a streamed text) and inline code keep links as written.
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]+`)/;
const LINK = /\[([^\]\n]*)\]\(<?(https?:\/\/[^\s)>]+)>?\)|<https?:\/\/[^\s>]+>|https?:\/\/[^\s<>]+/g;
const TRAILING = /[.,;:!?'"*_~]+$/;

function splitTrailing(url: string): [string, string] {
  let end = url.length;
  const punctuation = TRAILING.exec(url);
  if (punctuation) end = punctuation.index;
  // A closing parenthesis belongs to the URL only when the URL opened one (Wikipedia-style links).
  while (url[end - 1] === ')' && (url.slice(0, end).match(/\(/g)?.length ?? 0) < (url.slice(0, end).match(/\)/g)?.length ?? 0)) end--;
  return [url.slice(0, end), url.slice(end)];
}

function wrapLinks(text: string): string {
  return text.replace(LINK, (match: string, label: string | undefined, target: string | undefined) => {
    if (label !== undefined && target !== undefined) return `[${label}](<${target}>)`;
    if (match.startsWith('<')) return match;
    const [url, rest] = splitTrailing(match);
    return `<${url}>${rest}`;
  });
}

/**
 * Discord unfurls every bare link into a preview card; a link written `<url>` (or `[label](<url>)`) shows as a
 * plain link. Unlike the SUPPRESS_EMBEDS flag, this leaves the message's own embeds (the sources) visible.
 */
export function withoutLinkPreviews(text: string): string {
  return text
    .split(CODE)
    .map((part, i) => (i % 2 === 1 ? part : wrapLinks(part)))
    .join('');
}
