import type { ChatMessage } from '../service/types.ts';

/** Characters that tokenizers give about one token each: CJK ideographs, kana, Hangul, CJK punctuation, fullwidth forms, emoji. */
const DENSE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef\p{Extended_Pictographic}]/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, control characters included.
const NON_ASCII = /[^\x00-\x7f]/gu;

/** Framing a chat message costs beyond its text (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Estimated tokens of a text, a little on the high side so a budget is not overrun:
 * - CJK characters and emoji: 1 token each (Chinese runs about 0.6-1 token per character);
 * - other non-ASCII characters (accented Latin, Cyrillic, Greek, Arabic, …): 1/2 token each;
 * - ASCII: 1/4 token each (English averages about 4 characters per token).
 * The service's reported usage is authoritative; this only decides what to trim.
 */
export function estimateTextTokens(text: string): number {
  if (text === '') return 0;
  const dense = text.match(DENSE)?.length ?? 0;
  const nonAscii = text.match(NON_ASCII)?.length ?? 0;
  const ascii = text.length - countUtf16Units(text, NON_ASCII);
  return Math.ceil(dense + (nonAscii - dense) / 2 + ascii / 4);
}

function countUtf16Units(text: string, pattern: RegExp): number {
  let units = 0;
  for (const match of text.matchAll(pattern)) units += match[0].length;
  return units;
}

/** Tokens of one wire message; `imageTokens` gives each image part's estimate (by its URL). */
export function estimateMessageTokens(message: ChatMessage, imageTokens: (url: string) => number): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  if (typeof message.content === 'string') tokens += estimateTextTokens(message.content);
  else if (message.content) {
    for (const part of message.content) {
      if (part.type === 'text') tokens += estimateTextTokens(part.text);
      else if (part.type === 'image_url') tokens += imageTokens(part.image_url.url);
    }
  }
  if (message.reasoning_content) tokens += estimateTextTokens(message.reasoning_content);
  for (const call of message.tool_calls ?? []) {
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(call.function.name) + estimateTextTokens(call.function.arguments);
  }
  return tokens;
}
