/**
 * One reply, start to end: the core's stream rendered on a SlackReplySurface, the sources as context blocks in
 * the last call, then files the reply produced and, when asked for, the reasoning as a snippet (Slack shows it
 * collapsed).
 */
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { renderReply, type RenderedReply } from '../../src/streaming/render-reply.ts';
import { citationBlocks } from './citation-blocks.ts';
import type { ReplyTarget } from './reply-part.ts';
import { SlackReplySurface } from './reply-surface.ts';
import type { SlackApi } from './slack-api.ts';
import type { StreamingSwitch } from './stream-part.ts';
import { shareFile, type FileToShare } from './upload.ts';

export interface ReplyDeps {
  api: SlackApi;
  streaming: StreamingSwitch;
  logger: Logger;
}

export interface ReplyOptions {
  target: ReplyTarget;
  /** Shows what the bot is doing until the first text appears (assistant threads: setStatus). */
  status?: (text: string) => Promise<void>;
  /** Clears a status that no message cleared (Slack clears it when the app replies). */
  clearStatus?: () => Promise<void>;
  wantsReasoning?: boolean;
  /** The user stopped the streamed answer. */
  onStoppedByUser?: () => void;
}

export interface SentReply {
  rendered?: RenderedReply;
  /** Timestamps of the messages that hold the answer. */
  messageTs: string[];
}

const EMPTY_TEXT = '_I have nothing to add to that._';

export async function sendReply(deps: ReplyDeps, stream: ReplyStream, options: ReplyOptions): Promise<SentReply> {
  const { api, logger } = deps;
  const surface = new SlackReplySurface({
    api,
    target: options.target,
    streaming: deps.streaming,
    logger,
    ...(options.onStoppedByUser && { onStoppedByUser: options.onStoppedByUser }),
  });
  let statusShown = false;
  const status = options.status;
  let rendered: RenderedReply | undefined;
  try {
    rendered = await renderReply(
      stream,
      surface,
      {
        status: status
          ? async (_phase, text) => {
              if (surface.opened) return;
              statusShown = true;
              await status(text).catch((error: unknown) => logger.debug({ err: error }, 'Slack status not shown'));
            }
          : undefined,
        failed: (error) => logger.error({ err: error }, 'Slack reply stream failed'),
      },
      { emptyText: EMPTY_TEXT },
    );
  } catch (error) {
    logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be shown');
  }
  try {
    await surface.finish(rendered && !surface.stoppedByUser ? citationBlocks(rendered.citations) : []);
  } catch (error) {
    logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be finished');
  }
  if (statusShown && !surface.opened) await options.clearStatus?.().catch(() => {});
  if (rendered && !surface.stoppedByUser) await shareExtras(deps, options, rendered);
  return { ...(rendered && { rendered }), messageTs: surface.messageTs };
}

async function shareExtras(deps: ReplyDeps, options: ReplyOptions, rendered: RenderedReply): Promise<void> {
  const files: FileToShare[] = rendered.attachments.map((a) => ({ name: a.name, data: a.data }));
  if (options.wantsReasoning && rendered.reasoning.trim() !== '') {
    files.push({ name: 'reasoning.md', title: 'Reasoning', data: Buffer.from(rendered.reasoning, 'utf8') });
  }
  for (const file of files) {
    try {
      await shareFile(deps.api, options.target, file);
    } catch (error) {
      deps.logger.error({ err: error, file: file.name }, 'Slack upload failed');
    }
  }
}
