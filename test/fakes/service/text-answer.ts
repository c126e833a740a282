import { randomInt } from 'node:crypto';
import type { Turn } from './chat-request.ts';
import type { ImageInput } from './media-input.ts';

/** Fixed reply of the `unicode` prompt: CJK, accents and multi-code-point emoji, to exercise UTF-8 handling. */
export const unicodeReply = 'Unicode: 你好，世界！🌍 Ünïcödé — こんにちは 👋🏽 안녕하세요 🎉 👩‍💻';

const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

/** `long N`: N words, a sentence every ten words and a paragraph every fifty. */
function longText(count: number): string {
  let out = '';
  for (let i = 0; i < count; i += 1) {
    const word = words[i % words.length]!;
    const sentenceStart = i % 10 === 0;
    if (i > 0) out += i % 50 === 0 ? '\n\n' : ' ';
    out += sentenceStart ? word[0]!.toUpperCase() + word.slice(1) : word;
    if (i % 10 === 9 || i === count - 1) out += '.';
  }
  return out;
}

function describeImages(images: ImageInput[]): string {
  const lines = images.map((image, i) =>
    image.source === 'remote'
      ? `Image ${i + 1}: remote image ${image.url} (not downloaded)`
      : `Image ${i + 1}: ${image.mime} ${image.width}x${image.height}`,
  );
  return `I see ${images.length} image${images.length === 1 ? '' : 's'}.\n${lines.join('\n')}`;
}

export function lastUserTurn(turns: Turn[]): Turn | undefined {
  return turns.findLast((t) => t.role === 'user');
}

/**
 * The deterministic reply to a conversation. The last user message picks it, matched at the end of
 * the message so a speaker prefix such as "alice: recall" still counts (case-insensitive):
 * - `recall` / `what did I say first?` → `You first said: <first user message>`
 * - `count turns` → `Messages: N (system S, user U, assistant A, tool T)`
 * - `system?` → `System prompt: <system text>` or `System prompt: none`
 * - `history` → every earlier message as `role: text`, one per line
 * - `unicode` → unicodeReply
 * - `roll N` → `Rolled <1..N>.`, drawn anew each time, as a sampling model answers the same question differently
 * - `long N` → N words of text (N up to 20000)
 * - anything else → `Echo: <message>`
 * Images in the last user message add a description (format and size of each).
 */
export function textReply(turns: Turn[]): string {
  const last = lastUserTurn(turns);
  const text = last?.text.trim() ?? '';
  const images = last && last.images.length > 0 ? `\n${describeImages(last.images)}` : '';
  const long = /\blong (\d{1,5})$/i.exec(text);
  if (long) return longText(Math.min(Number(long[1]), 20000)) + images;
  if (/\b(recall|what did i say first\??)$/i.test(text)) {
    return `You first said: ${turns.find((t) => t.role === 'user')?.text ?? ''}${images}`;
  }
  if (/\bcount turns$/i.test(text)) {
    const count = (role: Turn['role']) => turns.filter((t) => t.role === role).length;
    return `Messages: ${turns.length} (system ${count('system')}, user ${count('user')}, assistant ${count('assistant')}, tool ${count('tool')})${images}`;
  }
  if (/\bsystem\?$/i.test(text)) {
    const system = turns.filter((t) => t.role === 'system').map((t) => t.text);
    return `System prompt: ${system.length > 0 ? system.join('\n') : 'none'}${images}`;
  }
  if (/\bhistory$/i.test(text)) {
    const earlier = turns.slice(0, last ? turns.lastIndexOf(last) : turns.length);
    return `History:\n${earlier.map((t) => `${t.role}: ${t.text}`).join('\n')}${images}`;
  }
  if (/\bunicode$/i.test(text)) return unicodeReply + images;
  const roll = /\broll (\d{1,9})$/i.exec(text);
  if (roll) return `Rolled ${randomInt(1, Math.max(2, Number(roll[1]) + 1))}.${images}`;
  return `Echo: ${text}${images}`;
}

export function reasoningFor(subject: string): string {
  const snippet = subject.length > 60 ? `${subject.slice(0, 60)}…` : subject;
  return `The user wrote "${snippet}". Let me think about how to answer that.`;
}
