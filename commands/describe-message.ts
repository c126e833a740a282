import { describeImages } from './describe.ts';
import { answerScope, targetFiles, type MessageActionDefinition } from './message-action.ts';

export const describeMessage: MessageActionDefinition = {
  id: 'describe',
  name: 'Describe',
  description: "Describe this message's images",
  async run(ctx, { engine }) {
    const images = targetFiles(ctx.target, 'image');
    if (images.length === 0) return ctx.reply('That message has no image to describe.');
    await describeImages(answerScope(ctx), engine, images);
  },
};
