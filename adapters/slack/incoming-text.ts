/**
 * A Slack message's text as the model should read it. Slack encodes mentions, channels and links in angle
 * brackets and escapes `&`, `<` and `>`; user mentions stay as tokens (the core swaps them for `@Name`), the rest
 * becomes plain text.
 */

export interface SlackTextParts {
  text: string;
  /** User ids mentioned, with the exact token as it appears in `text`. */
  mentions: Array<{ id: string; raw: string }>;
}

const ANGLE = /<([^<>]+)>/g;

export function readSlackText(input: string, options: { botUserId?: string } = {}): SlackTextParts {
  const mentions: Array<{ id: string; raw: string }> = [];
  let text = input;
  // The mention that addresses the bot is how the message reached it, not part of the question.
  if (options.botUserId) text = text.replace(new RegExp(`^\\s*<@${options.botUserId}(?:\\|[^>]*)?>[\\s,:]*`), '');
  text = text.replace(ANGLE, (token, inner: string) => {
    const [target = '', label] = splitLabel(inner);
    if (target.startsWith('@')) {
      // As it will read once the text's entities are decoded (a label may hold `&amp;`).
      const raw = unescapeEntities(token);
      if (!mentions.some((m) => m.raw === raw)) mentions.push({ id: target.slice(1), raw });
      return token;
    }
    if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
    if (target.startsWith('!subteam^')) return label ?? '@group';
    if (target.startsWith('!date^')) return label ?? '';
    if (target.startsWith('!')) return `@${label ?? target.slice(1)}`;
    if (target.startsWith('mailto:')) return label ?? target.slice('mailto:'.length);
    if (label && label !== target) return `${label} (${target})`;
    return target;
  });
  return { text: unescapeEntities(text).trim(), mentions };
}

function splitLabel(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  return bar === -1 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

function unescapeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
