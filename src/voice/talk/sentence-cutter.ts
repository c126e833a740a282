/** Abbreviations whose full stop ends no sentence. */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'vs', 'etc', 'eg', 'ie', 'no', 'approx', 'jr', 'sr', 'prof']);
/** A sentence's end: its punctuation (and closing quotes or brackets) followed by a space, or a line break. */
const SENTENCE_END = /[.!?…。！？]+["'”’)\]]*(?=\s)|\n+/gu;
/** Past this many characters without a sentence end, the text is cut at the last comma or space. */
const MAX_SENTENCE_CHARS = 300;

/**
 * Cuts streamed answer text into sentences as soon as each is complete, so the first can be spoken while the
 * rest is still being written.
 */
export class SentenceCutter {
  #buffer = '';

  /** Adds a piece of text; returns the sentences it completed, in order. */
  push(delta: string): string[] {
    this.#buffer += delta;
    const sentences: string[] = [];
    for (let cut = this.#nextCut(); cut > 0; cut = this.#nextCut()) {
      const sentence = this.#buffer.slice(0, cut).trim();
      this.#buffer = this.#buffer.slice(cut);
      if (sentence !== '') sentences.push(sentence);
    }
    return sentences;
  }

  /** The text left once the answer is complete. */
  flush(): string | undefined {
    const rest = this.#buffer.trim();
    this.#buffer = '';
    return rest === '' ? undefined : rest;
  }

  /** Where the first complete sentence ends, or 0. */
  #nextCut(): number {
    for (const match of this.#buffer.matchAll(SENTENCE_END)) {
      const end = match.index + match[0].length;
      if (match[0].startsWith('.') && notAnEnd(this.#buffer.slice(0, match.index))) continue;
      return end;
    }
    if (this.#buffer.length <= MAX_SENTENCE_CHARS) return 0;
    const head = this.#buffer.slice(0, MAX_SENTENCE_CHARS);
    const comma = head.lastIndexOf(', ');
    if (comma > MAX_SENTENCE_CHARS / 2) return comma + 1;
    const space = head.lastIndexOf(' ');
    return space > 0 ? space : MAX_SENTENCE_CHARS;
  }
}

/** A full stop after an abbreviation, an initial or a list item's number. */
function notAnEnd(before: string): boolean {
  if (/(?:^|\n)\s*\d+$/.test(before)) return true;
  const word = /([\p{L}.]+)$/u.exec(before)?.[1];
  if (word === undefined) return false;
  return ABBREVIATIONS.has(word.replace(/\./g, '').toLowerCase()) || /^\p{L}$/u.test(word);
}

/**
 * A written sentence as it is to be spoken: citation markers, Markdown emphasis, headings and bullets dropped,
 * links read by their text, bare addresses not read out letter by letter.
 */
export function spokenText(sentence: string): string {
  return sentence
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, 'a link')
    .replace(/^\s*(?:#{1,6}|[-*+]|\d+\.)\s+/gm, '')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
