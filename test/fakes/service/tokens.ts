/*
 * A stand-in tokenizer: one token per CJK character, emoji or punctuation mark, and one per
 * run of up to four letters/digits (with its leading space). Counting and streaming use the
 * same pieces, so usage matches what was sent.
 */
const piece = /\s*[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|\s*[\p{L}\p{N}\p{M}]{1,4}|\s*[^\s\p{L}\p{N}]|\s+/gu;

export function splitTokens(text: string): string[] {
  return text.match(piece) ?? [];
}

export function countTokens(text: string): number {
  return splitTokens(text).length;
}
