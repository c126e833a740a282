/**
 * Splitting a markdown answer into platform-sized messages without breaking it: a cut never lands inside a
 * word when a better boundary exists, and a code block that spans the cut is closed in the first part and
 * reopened (same info string) in the next, so both render as code.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export interface FenceState {
  marker: string;
  info: string;
}

/** The fence still open at the end of `text`, if any. */
export function openFenceAt(text: string): FenceState | undefined {
  let open: FenceState | undefined;
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    if (!open) open = { marker, info: match[2]!.trim() };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && match[2]!.trim() === '') open = undefined;
  }
  return open;
}

/** Makes a partial text render well on its own: closes a code block left open by the stream so far. */
export function closeOpenFence(text: string): string {
  const open = openFenceAt(text);
  if (!open) return text;
  return `${text}${text.endsWith('\n') ? '' : '\n'}${open.marker}`;
}

/** Where to cut `text` so the first part has at most `limit` characters: prefer paragraph, line, sentence, word. */
export function findCut(text: string, limit: number, notBefore = 0): number {
  if (text.length <= limit) return text.length;
  const window = text.slice(0, limit + 1);
  const minimum = Math.max(Math.floor(limit * 0.5), notBefore);
  const candidates: Array<[RegExp, number]> = [
    [/\n\s*\n/g, 0],
    [/\n/g, 0],
    [/[.!?。！？](?=\s)/g, 1],
    [/\s/g, 0],
  ];
  for (const [pattern, keep] of candidates) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const cut = match.index + keep;
      if (cut <= limit && cut >= minimum) best = cut;
    }
    if (best > 0) return best;
  }
  return Math.max(avoidSplittingSurrogate(text, limit), notBefore);
}

function avoidSplittingSurrogate(text: string, cut: number): number {
  const code = text.charCodeAt(cut - 1);
  return code >= 0xd800 && code <= 0xdbff ? cut - 1 : cut;
}

/**
 * Cuts the head off `text` so it fits `limit` once a dangling code block is closed; returns the head as it
 * should be shown and the rest, with the code block reopened in front of it. `notBefore` keeps text that was
 * already sent (append-only surfaces cannot take it back) in the head.
 */
export function splitHead(text: string, limit: number, notBefore = 0): { head: string; rest: string } {
  let budget = limit;
  for (;;) {
    const cut = findCut(text, budget, notBefore);
    const rawHead = text.slice(0, cut).replace(/\s+$/, '');
    const open = repeatable(openFenceAt(rawHead), limit);
    const head = open ? `${rawHead}\n${open.marker}` : rawHead;
    if (head.length <= limit || budget <= notBefore + 16) {
      const tail = text.slice(cut).replace(/^\s*\n/, '');
      const rest = open ? `${open.marker}${open.info}\n${tail}` : tail.replace(/^\s+/, '');
      return { head, rest };
    }
    budget -= head.length - limit;
  }
}

/**
 * A code block whose fence line is too long to close and reopen in every part (a fence of thousands of `~`) is
 * split as plain text: repeating it would leave no room for the text and the split would never end.
 */
function repeatable(open: FenceState | undefined, limit: number): FenceState | undefined {
  return open && open.marker.length + open.info.length + 2 <= limit / 4 ? open : undefined;
}

/** Splits a complete text into parts of at most `limit` characters each. */
export function splitMarkdown(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const { head, rest: next } = splitHead(rest, limit);
    parts.push(head);
    rest = next;
  }
  if (rest.trim() !== '' || parts.length === 0) parts.push(rest);
  return parts;
}
