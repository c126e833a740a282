/** Longest text kept of one message with its files: a history read of 1,000 messages stays a few MB at most. */
export const MAX_MESSAGE_TEXT = 8_000;

/** A message's text as the workspace features read it: its parts (text, embeds, files) one per line, bounded. */
export function messageText(parts: readonly string[]): string {
  const text = parts.filter((part) => part !== '').join('\n');
  return text.length > MAX_MESSAGE_TEXT ? `${text.slice(0, MAX_MESSAGE_TEXT - 1)}…` : text;
}
