import { answerScope, targetFiles, type MessageActionDefinition } from './message-action.ts';
import { transcribeRecordings } from './transcribe.ts';

export const transcribeMessage: MessageActionDefinition = {
  id: 'transcribe',
  name: 'Transcribe',
  description: "Transcribe this message's voice message or audio files",
  async run(ctx, { engine }) {
    const recordings = targetFiles(ctx.target, 'audio');
    if (recordings.length === 0) return ctx.reply('That message has no voice message or audio file to transcribe.');
    await transcribeRecordings(answerScope(ctx), engine, recordings);
  },
};
