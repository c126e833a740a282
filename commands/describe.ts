import type { ConversationEngine } from '../src/conversation/engine.ts';
import { attachmentOption, stringOption, type CommandAttachment, type CommandDefinition, type InvocationContext } from './command.ts';
import { messageFromCommand } from './incoming.ts';

/** Streams a description of images, or the answer to a question about them. */
export async function describeImages(
  ctx: InvocationContext,
  engine: ConversationEngine,
  images: readonly CommandAttachment[],
  question = '',
): Promise<void> {
  const prepared = [];
  for (const image of images) prepared.push({ name: image.name, mime: image.contentType, data: await image.fetch() });
  await ctx.replyStream(engine.handle(messageFromCommand(ctx, { text: question, images: prepared })));
}

export const describe: CommandDefinition = {
  name: 'describe',
  description: 'Describe an image (any format: JPEG, PNG, HEIC, AVIF, TIFF, SVG…)',
  slow: true,
  options: [
    { name: 'image', description: 'The image', type: 'attachment', required: true },
    { name: 'question', description: 'What to look for (default: a general description)', type: 'string', maxLength: 2000 },
  ],
  async run(ctx, { engine }) {
    await describeImages(ctx, engine, [attachmentOption(ctx, 'image')!], stringOption(ctx, 'question'));
  },
};
