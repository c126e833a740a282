import type { Message } from 'discord.js';

/** Discord's longest thread name. */
export const THREAD_NAME_LIMIT = 100;

/**
 * A thread named after the question it is opened for: its words on one line as people read them (Herald's own
 * mention left out, other mentions as names), cut to Discord's 100 characters.
 */
export function threadName(message: Message, botId: string): string {
  const { users, roles } = message.mentions;
  const line = message.content
    .replace(new RegExp(`<@!?${botId}>`, 'g'), ' ')
    .replace(/<@!?(\d{17,20})>/g, (_raw, id: string) => `@${users.get(id)?.displayName ?? 'someone'}`)
    .replace(/<@&(\d{17,20})>/g, (_raw, id: string) => (roles.get(id)?.tags?.botId === botId ? ' ' : `@${roles.get(id)?.name ?? 'role'}`))
    .replace(/<#\d{17,20}>/g, '#channel')
    .replace(/<a?:(\w+):\d{17,20}>/g, ':$1:')
    .replace(/\s+/g, ' ')
    .trim();
  const name = line === '' ? `Question from ${message.member?.displayName ?? message.author.displayName}` : line;
  return cut(name, THREAD_NAME_LIMIT);
}

/** At most `limit` UTF-16 units, ending in … when cut, never half a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const kept = text.slice(0, limit - 1).replace(/[\uD800-\uDBFF]$/, '');
  return `${kept.trimEnd()}…`;
}
