import { attachedFile } from './ask.ts';
import { approvalsOf } from './command.ts';
import { messageAbout, type MessageActionDefinition } from './message-action.ts';

const MAX_QUESTION_CHARS = 4000;

export const askAboutMessage: MessageActionDefinition = {
  id: 'ask',
  name: 'Ask Herald…',
  description: 'Ask Herald a question about this message',
  prompt: {
    title: 'Ask Herald about this message',
    label: 'Your question',
    placeholder: 'What does this mean? Is it right? What should I answer?',
    maxLength: MAX_QUESTION_CHARS,
    offerPublic: true,
  },
  async run(ctx, { engine }) {
    const question = (ctx.input ?? '').trim();
    if (question === '') return ctx.reply('Ask a question about the message.');
    const attached = [];
    for (const file of ctx.target.files) attached.push(await attachedFile(file));
    const files = {
      images: attached.flatMap((a) => a.images ?? []),
      audio: attached.flatMap((a) => a.audio ?? []),
      documents: attached.flatMap((a) => a.documents ?? []),
    };
    await ctx.replyStream(engine.handle(messageAbout(ctx, { text: question, ...files }), approvalsOf(ctx)));
  },
};
