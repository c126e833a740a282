import type { IncomingMessage } from '../src/conversation/types.ts';
import { attachmentKind } from '../src/media/attachment-kind.ts';
import { approvalsOf, attachmentOption, booleanOption, stringOption, type CommandAttachment, type CommandDefinition } from './command.ts';
import { messageFromCommand } from './incoming.ts';

type Attached = Pick<IncomingMessage, 'images' | 'audio' | 'documents'>;

/** A file as a message attachment, by what attachmentKind makes of it; an unreadable kind is not downloaded. */
export async function attachedFile(file: CommandAttachment & { isVoiceMessage?: boolean }): Promise<Attached> {
  const kind = attachmentKind(file.name, file.contentType, file.size);
  const mime = file.contentType;
  if (kind === 'unsupported') return { documents: [{ name: file.name, mime }] };
  const data = await file.fetch();
  if (kind === 'image') return { images: [{ name: file.name, mime, data }] };
  if (kind === 'audio') return { audio: [{ name: file.name, mime, data, isVoiceMessage: file.isVoiceMessage ?? false }] };
  return { documents: [{ name: file.name, mime, data }] };
}

export const ask: CommandDefinition = {
  name: 'ask',
  description: 'Ask Herald a question',
  slow: true,
  options: [
    { name: 'question', description: 'What do you want to know?', type: 'string', required: true, maxLength: 4000 },
    { name: 'image', description: 'An image to ask about', type: 'attachment' },
    { name: 'file', description: 'A text, code or PDF file to ask about', type: 'attachment' },
    { name: 'search', description: 'Search the web for this answer (default: the server setting)', type: 'boolean' },
    { name: 'reasoning', description: "Show the model's reasoning", type: 'boolean' },
  ],
  async run(ctx, { engine }) {
    const image = attachmentOption(ctx, 'image');
    const file = attachmentOption(ctx, 'file');
    const search = booleanOption(ctx, 'search');
    const attached = file ? await attachedFile(file) : {};
    const images = [...(image ? [{ name: image.name, mime: image.contentType, data: await image.fetch() }] : []), ...(attached.images ?? [])];
    const message = messageFromCommand(ctx, {
      text: stringOption(ctx, 'question') ?? '',
      ...attached,
      ...(images.length > 0 && { images }),
      flags: { wantsReasoning: booleanOption(ctx, 'reasoning') ?? false },
    });
    const overrides = search === undefined ? undefined : { webSearch: search ? ('force' as const) : ('off' as const) };
    await ctx.replyStream(engine.handle(message, { overrides, ...approvalsOf(ctx) }));
  },
};
