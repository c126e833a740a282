import { defineTool } from './types.ts';

export const MAX_RECENT_MESSAGES = 50;

export const recentMessagesTool = defineTool<{ limit?: number }>({
  name: 'recent_messages',
  description: 'Reads the latest messages of the current channel or thread, including ones not addressed to you, e.g. to summarize a discussion.',
  parameters: {
    type: 'object',
    properties: { limit: { type: 'integer', description: `how many messages, 1-${MAX_RECENT_MESSAGES} (default 20)` } },
  },
  available: (context) => context.recentMessages !== undefined,
  async handler({ limit }, context) {
    const wanted = Math.min(MAX_RECENT_MESSAGES, Math.max(1, limit ?? 20));
    const messages = await context.recentMessages!(wanted);
    if (messages.length === 0) return 'No recent messages.';
    return messages
      .slice(-wanted)
      .map((m) => `${m.at ? `[${m.at}] ` : ''}${m.author}${m.isBot ? ' (bot)' : ''}: ${m.text}`)
      .join('\n');
  },
});
