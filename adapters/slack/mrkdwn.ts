/**
 * Standard markdown (what the model writes) to Slack's mrkdwn, for the places that take only mrkdwn: message
 * `text` fallbacks, context blocks and response_url replies. Code is kept verbatim; `&`, `<` and `>` are
 * escaped everywhere else as Slack requires, except in the web links this conversion makes, so the result never
 * holds a live mention. Every step is one pass (or a regex that cannot backtrack past a delimiter): any text,
 * however hostile, converts in linear time.
 */

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
// Private-use characters stand in for converted pieces while the rest of the text is rewritten.
const TOKEN = /\uE000(\d+)\uE001/g;
const PLACEHOLDER_CHARS = /[\uE000-\uE002]/g;
const BOLD_MARK = '\uE002';
const WEB_URL = /^(?:https?|mailto):/i;

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
  const heading = /^\s{0,3}#{1,6}\s/.exec(line);
  if (heading) {
    const title = inline(headingTitle(line.slice(heading[0].length)).replace(/\*\*|__/g, ''));
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

/** A heading's text without its closing `#`s (`## Title ##`), trimmed. */
function headingTitle(rest: string): string {
  const text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  return end < text.length && end > 0 && /\s/.test(text[end - 1]!) ? text.slice(0, end).trimEnd() : text;
}

/** Inline markdown to mrkdwn: code spans, links, bold, italics, strike-through. */
function inline(text: string): string {
  const tokens: string[] = [];
  const keep = (converted: string) => `\uE000${tokens.push(converted) - 1}\uE001`;
  let s = codeSpans(text.replace(PLACEHOLDER_CHARS, ''), keep);
  s = links(s, keep);
  s = autolinks(s, keep);
  s = escapeMrkdwn(s);
  s = pairs(s, '**', BOLD_MARK);
  s = pairs(s, '__', BOLD_MARK, true);
  s = s.replace(/(^|[^\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])/g, '$1_$2_');
  s = pairs(s, '~~', '~');
  s = s.replace(/\\([\\`*_{}[\]()#+\-.!~|])/g, '$1');
  s = s.replaceAll(BOLD_MARK, '*');
  return s.replace(TOKEN, (_m, n: string) => tokens[Number(n)] ?? '');
}

/** For each index, the first index at or after it holding one of `stops` (or the length). */
function nextOf(s: string, stops: (ch: string) => boolean): Int32Array {
  const next = new Int32Array(s.length + 1);
  next[s.length] = s.length;
  for (let i = s.length - 1; i >= 0; i--) next[i] = stops(s[i]!) ? i : next[i + 1]!;
  return next;
}

/** A run of backticks opens a code span closed by the next run of the same length; a run without one is text. */
function codeSpans(s: string, keep: (converted: string) => string): string {
  const runs: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '`') continue;
    const start = i;
    while (s[i + 1] === '`') i++;
    runs.push({ start, end: i + 1 });
  }
  const closer = new Int32Array(runs.length).fill(-1);
  const lastOfLength = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    const length = runs[r]!.end - runs[r]!.start;
    closer[r] = lastOfLength.get(length) ?? -1;
    lastOfLength.set(length, r);
  }
  let out = '';
  let at = 0;
  for (let r = 0; r < runs.length; r++) {
    const close = closer[r]!;
    if (close === -1 || runs[r]!.start < at) continue;
    const { start, end } = runs[r]!;
    const ticks = s.slice(start, end);
    out += s.slice(at, start) + keep(`${ticks}${escapeMrkdwn(s.slice(end, runs[close]!.start))}${ticks}`);
    at = runs[close]!.end;
    r = close;
  }
  return out + s.slice(at);
}

const isSpace = (ch: string) => /\s/.test(ch);

/** `[label](url "title")` (and images alike) to `<url|label>`; a link to anything but the web keeps only its label. */
function links(s: string, keep: (converted: string) => string): string {
  const labelEnd = nextOf(s, (ch) => ch === ']' || ch === '\n');
  const spaceEnd = nextOf(s, (ch) => !isSpace(ch));
  const urlEnd = nextOf(s, (ch) => ch === ')' || ch === '>' || isSpace(ch));
  const quote = nextOf(s, (ch) => ch === '"');
  let out = '';
  let at = 0;
  for (let p = s.indexOf('['); p !== -1; p = s.indexOf('[', p + 1)) {
    const close = labelEnd[p + 1]!;
    if (close === p + 1 || s[close] !== ']' || s[close + 1] !== '(') continue;
    let i = spaceEnd[close + 2]!;
    if (s[i] === '<') i++;
    const urlStart = i;
    i = urlEnd[i]!;
    if (i === urlStart) continue;
    const url = s.slice(urlStart, i);
    if (s[i] === '>') i++;
    const afterSpace = spaceEnd[i]!;
    if (afterSpace > i && s[afterSpace] === '"' && quote[afterSpace + 1]! < s.length) i = quote[afterSpace + 1]! + 1;
    i = spaceEnd[i]!;
    if (s[i] !== ')') continue;
    const start = p > at && s[p - 1] === '!' ? p - 1 : p;
    const label = s.slice(p + 1, close);
    out += s.slice(at, start) + (WEB_URL.test(url) ? keep(`<${linkUrl(url)}|${linkLabel(stripEmphasis(label))}>`) : label);
    at = i + 1;
    p = i;
  }
  return out + s.slice(at);
}

/** `<https://…>` and `<mailto:…>` as Slack links. */
function autolinks(s: string, keep: (converted: string) => string): string {
  const urlEnd = nextOf(s, (ch) => ch === '>' || isSpace(ch));
  let out = '';
  let at = 0;
  for (let p = s.indexOf('<'); p !== -1; p = s.indexOf('<', p + 1)) {
    const end = urlEnd[p + 1]!;
    const url = s.slice(p + 1, end);
    if (s[end] !== '>' || !/^(?:https?|mailto):./i.test(url)) continue;
    out += s.slice(at, p) + keep(`<${linkUrl(url)}>`);
    at = end + 1;
    p = end;
  }
  return out + s.slice(at);
}

/**
 * `DtextD` to `MtextM` wherever the lazy /D(?=\S)([\s\S]*?\S)D/g would match (with `wordBound`, only between
 * non-word characters, as `__` needs): the closer for an opener is the first closing delimiter after it, found in
 * a table built once from the right.
 */
function pairs(s: string, delimiter: string, mark: string, wordBound = false): string {
  const isWord = (ch: string | undefined) => ch !== undefined && /\w/.test(ch);
  const closes = (j: number) => s.startsWith(delimiter, j) && j > 0 && !isSpace(s[j - 1]!) && !(wordBound && isWord(s[j + delimiter.length]));
  const nextClose = new Int32Array(s.length + 2).fill(-1);
  for (let j = s.length - 1; j >= 0; j--) nextClose[j] = closes(j) ? j : nextClose[j + 1]!;
  let out = '';
  let at = 0;
  for (let p = s.indexOf(delimiter); p !== -1; p = s.indexOf(delimiter, p + 1)) {
    const first = s[p + delimiter.length];
    if (first === undefined || isSpace(first)) continue;
    if (wordBound && p > 0 && (p - 1 < at || isWord(s[p - 1]))) continue;
    const close = nextClose[p + delimiter.length + 1]!;
    if (close === -1) break;
    out += `${s.slice(at, p)}${mark}${s.slice(p + delimiter.length, close)}${mark}`;
    at = close + delimiter.length;
    p = at - 1;
  }
  return out + s.slice(at);
}

function stripEmphasis(label: string): string {
  return label.replace(/\*\*|__|`/g, '');
}
