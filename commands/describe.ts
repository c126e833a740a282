import { attachmentOption, stringOption, type CommandDefinition } from './command.ts';
import { messageFromCommand } from './incoming.ts';

export const describe: CommandDefinition = {
  name: 'describe',
  description: 'Describe an image (any format: JPEG, PNG, HEIC, AVIF, TIFF, SVG…)',
  slow: true,
  options: [
    { name: 'image', description: 'The image', type: 'attachment', required: true },
    { name: 'question', description: 'What to look for (default: a general description)', type: 'string', maxLength: 2000 },
  ],
  async run(ctx, { engine }) {
    const image = attachmentOption(ctx, 'image')!;
    const message = messageFromCommand(ctx, {
      text: stringOption(ctx, 'question') ?? '',
      images: [{ name: image.name, mime: image.contentType, data: await image.fetch() }],
    });
    await ctx.replyStream(engine.handle(message));
  },
};
