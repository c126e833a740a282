import { attachmentOption, booleanOption, stringOption, type CommandDefinition } from './command.ts';
import { messageFromCommand } from './incoming.ts';

export const ask: CommandDefinition = {
  name: 'ask',
  description: 'Ask Herald a question',
  slow: true,
  options: [
    { name: 'question', description: 'What do you want to know?', type: 'string', required: true, maxLength: 4000 },
    { name: 'image', description: 'An image to ask about', type: 'attachment' },
    { name: 'search', description: 'Search the web for this answer (default: the server setting)', type: 'boolean' },
    { name: 'reasoning', description: "Show the model's reasoning", type: 'boolean' },
  ],
  async run(ctx, { engine }) {
    const image = attachmentOption(ctx, 'image');
    const search = booleanOption(ctx, 'search');
    const message = messageFromCommand(ctx, {
      text: stringOption(ctx, 'question') ?? '',
      images: image ? [{ name: image.name, mime: image.contentType, data: await image.fetch() }] : undefined,
      flags: { wantsReasoning: booleanOption(ctx, 'reasoning') ?? false },
    });
    const overrides = search === undefined ? undefined : { webSearch: search ? ('force' as const) : ('off' as const) };
    await ctx.replyStream(engine.handle(message, { overrides }));
  },
};
