import { MessageFlags, type AttachmentPayload } from 'discord.js';
import type { OutgoingFile } from '../../commands/command.ts';
import { describeError } from '../../src/errors.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { RenderedReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import type { DiscordSurface } from './discord-surface.ts';
import { sourcesEmbed } from './sources-embed.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What Discord gets for a file; a voice message carries its length and waveform. */
function attachmentPayload(file: OutgoingFile): AttachmentPayload {
  return {
    attachment: file.data,
    name: file.name,
    ...(file.voiceMessage && { duration: file.voiceMessage.durationSeconds, waveform: file.voiceMessage.waveform }),
  };
}

/** Said instead of attempting an upload Discord would refuse. */
function overUploadLimit(name: string, size: number, limit: number): string {
  return `⚠️ "${name}" is ${megabytes(size)}, over the ${megabytes(limit)} upload limit here, so I can't post it.`;
}

/**
 * Posts a file under the reply, or says why it can't when it is over the upload limit. A voice message stands
 * alone (Discord allows it no text), so its caption goes first.
 */
export async function postFile(surface: DiscordSurface, file: OutgoingFile, caption?: string): Promise<void> {
  if (file.data.length > surface.uploadLimitBytes) {
    await surface.post({ content: overUploadLimit(file.name, file.data.length, surface.uploadLimitBytes) });
    return;
  }
  if (file.voiceMessage) {
    if (caption !== undefined) await surface.post({ content: caption });
    await surface.post({ files: [attachmentPayload(file)], flags: MessageFlags.IsVoiceMessage });
    return;
  }
  await surface.post({ ...(caption !== undefined && { content: caption }), files: [attachmentPayload(file)] });
}

/**
 * The touches after the streamed text: the sources embed, files the reply produced, reasoning when asked for.
 * A reply whose message was deleted while it was written gets none of them.
 */
export async function finishReply(
  surface: DiscordSurface,
  rendered: RenderedReply,
  options: { showReasoning: boolean; logger: Logger },
): Promise<void> {
  if (rendered.stopped === 'deleted') {
    options.logger.info({ messages: rendered.messages }, 'reply deleted while it was being written; stopped answering');
    return;
  }
  if (rendered.stopped) return;
  if (rendered.citations.length > 0) {
    const embed = sourcesEmbed(rendered.citations);
    const last = rendered.messages.at(-1);
    const embedded =
      last !== undefined &&
      (await surface.addEmbeds(last, [embed]).catch((error: unknown) => {
        if (error instanceof MessageGoneError) throw error;
        options.logger.warn({ err: error }, 'adding the sources embed failed; posting it on its own');
        return false;
      }));
    if (!embedded) await surface.post({ embeds: [embed] });
  }
  for (const file of rendered.attachments) await postFile(surface, file);
  if (options.showReasoning && rendered.reasoning.trim() !== '') {
    const data = Buffer.from(rendered.reasoning, 'utf8');
    await postFile(surface, { name: 'reasoning.md', mime: 'text/markdown', data }, '🧠 Reasoning');
  }
}

/**
 * A reply that could not be finished ends with a fresh short message (never a stack trace), so no message is
 * left looking complete when it is not. One whose message was deleted is left as it is.
 */
export async function reportFailure(surface: DiscordSurface, error: unknown, logger: Logger): Promise<void> {
  if (error instanceof MessageGoneError) {
    logger.info({ message: error.handle }, 'reply deleted before it was finished; stopped answering');
    return;
  }
  const report = describeError(error);
  if (report.kind === 'internal') logger.error({ err: error }, 'discord reply failed');
  else logger.info({ err: error }, 'reply refused');
  try {
    await surface.post({ content: `⚠️ ${report.message}` });
  } catch (postError) {
    logger.error({ err: postError }, 'could not tell the user that the reply failed');
  }
}
