/**
 * Standard markdown (what the model writes) to Slack's mrkdwn, for the places that take only mrkdwn: message
 * `text` fallbacks, context blocks and response_url replies. Code is kept verbatim; `&`, `<` and `>` are
 * escaped everywhere else as Slack requires, except in the links this conversion makes.
 */

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
// Private-use characters stand in for converted pieces while the rest of the line is rewritten.
const TOKEN = /\uE000(\d+)\uE001/g;
const BOLD_MARK = '\uE002';

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A URL made safe inside `<url|label>`: no characters that end the link or start its label. */
export function linkUrl(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
}

/** A link label: escaped, without the `|` and `>` that would cut it short. */
export function linkLabel(label: string): string {
  return escapeMrkdwn(label.replace(/\|/g, '¦'));
}

export function toMrkdwn(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
        out.push('```');
      } else {
        out.push(escapeMrkdwn(line));
      }
      continue;
    }
    if (marker) {
      fence = marker;
      out.push('```');
      continue;
    }
    if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? '')) {
      // Slack draws no tables; a code block at least keeps the columns aligned.
      const rows: string[] = [];
      while (i < lines.length && (TABLE_ROW.test(lines[i]!) || TABLE_RULE.test(lines[i]!))) rows.push(escapeMrkdwn(lines[i++]!));
      i--;
      out.push('```', ...rows, '```');
      continue;
    }
    out.push(convertLine(line));
  }
  if (fence !== undefined) out.push('```');
  return out.join('\n');
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
  if (heading) {
    const title = inline(heading[1]!.replace(/\*\*|__/g, ''));
    return title.trim() === '' ? '' : `*${title}*`;
  }
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────';
  const task = /^(\s*)[-*+]\s+\[([ xX])\]\s+(.*)$/.exec(line);
  if (task) return `${task[1]}${task[2] === ' ' ? '☐' : '☑'} ${inline(task[3]!)}`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1]}• ${inline(bullet[2]!)}`;
  const quote = /^(\s*>+\s?)(.*)$/.exec(line);
  if (quote) return `${quote[1]}${inline(quote[2]!)}`;
  return inline(line);
}

/** Inline markdown to mrkdwn: code spans, links, bold, italics, strike-through. */
function inline(text: string): string {
  const tokens: string[] = [];
  const keep = (converted: string) => `\uE000${tokens.push(converted) - 1}\uE001`;
  let s = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, ticks: string, code: string) => keep(`${ticks}${escapeMrkdwn(code)}${ticks}`));
  s = s.replace(/!?\[([^\]\n]+)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, (_m, label: string, url: string) =>
    keep(`<${linkUrl(url)}|${linkLabel(stripEmphasis(label))}>`),
  );
  s = s.replace(/<((?:https?|mailto):[^>\s]+)>/g, (_m, url: string) => keep(`<${linkUrl(url)}>`));
  s = escapeMrkdwn(s);
  s = s.replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, `${BOLD_MARK}$1${BOLD_MARK}`);
  s = s.replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, `$1${BOLD_MARK}$2${BOLD_MARK}`);
  s = s.replace(/(^|[^\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])/g, '$1_$2_');
  s = s.replace(/~~(?=\S)([\s\S]*?\S)~~/g, '~$1~');
  s = s.replace(/\\([\\`*_{}[\]()#+\-.!~|])/g, '$1');
  s = s.replaceAll(BOLD_MARK, '*');
  return s.replace(TOKEN, (_m, n: string) => tokens[Number(n)]!);
}

function stripEmphasis(label: string): string {
  return label.replace(/\*\*|__|`/g, '');
}
