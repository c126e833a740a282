import type { ConversationEngine } from '../src/conversation/engine.ts';
import { attachmentOption, type CommandAttachment, type CommandDefinition, type InvocationContext } from './command.ts';
import { messageFromCommand } from './incoming.ts';

/** Streams the transcripts of recordings (nothing else: the recordings are not answered). */
export async function transcribeRecordings(
  ctx: InvocationContext,
  engine: ConversationEngine,
  recordings: ReadonlyArray<CommandAttachment & { isVoiceMessage?: boolean }>,
): Promise<void> {
  const audio = [];
  for (const recording of recordings) {
    audio.push({
      name: recording.name,
      mime: recording.contentType,
      data: await recording.fetch(),
      isVoiceMessage: recording.isVoiceMessage ?? false,
    });
  }
  const message = messageFromCommand(ctx, { text: '', audio, flags: { transcriptOnly: true } });
  await ctx.replyStream(engine.handle(message));
}

export const transcribe: CommandDefinition = {
  name: 'transcribe',
  description: 'Transcribe a voice note or audio file (Ogg, WebM, M4A, MP3, WAV, FLAC…)',
  slow: true,
  options: [{ name: 'audio', description: 'The recording', type: 'attachment', required: true }],
  async run(ctx, { engine }) {
    await transcribeRecordings(ctx, engine, [attachmentOption(ctx, 'audio')!]);
  },
};
