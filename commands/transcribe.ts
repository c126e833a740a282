import { attachmentOption, type CommandDefinition } from './command.ts';
import { messageFromCommand } from './incoming.ts';

export const transcribe: CommandDefinition = {
  name: 'transcribe',
  description: 'Transcribe a voice note or audio file (Ogg, WebM, M4A, MP3, WAV, FLAC…)',
  slow: true,
  options: [{ name: 'audio', description: 'The recording', type: 'attachment', required: true }],
  async run(ctx, { engine }) {
    const audio = attachmentOption(ctx, 'audio')!;
    const message = messageFromCommand(ctx, {
      text: '',
      audio: [{ name: audio.name, mime: audio.contentType, data: await audio.fetch(), isVoiceMessage: false }],
      flags: { transcriptOnly: true },
    });
    await ctx.replyStream(engine.handle(message));
  },
};
