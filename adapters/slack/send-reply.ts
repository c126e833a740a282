/**
 * One reply, start to end: the core's stream rendered on a SlackReplySurface (a posted message with a Stop button
 * while it grows, when asked for), the sources and the feedback buttons as blocks in the last call, then files the reply produced and, when asked for, the reasoning as a snippet (Slack shows it
 * collapsed). The signal stops it where it is; aborted with a MessageGoneError, it names a message of the reply that
 * was deleted.
 */
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { renderReply, type RenderedReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import { type AnswerBlock, feedbackBlock, type StopBlock } from './answer-controls.ts';
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
  /** Stops the reply where it is (its messages stay for the caller to take down, or not). */
  signal?: AbortSignal;
  /** The ts of each message of the reply, as soon as Slack has it. */
  onPosted?: (ts: string) => void;
  /** The answer's id for the feedback buttons under it; none without. */
  feedbackId?: string;
  /** Herald's Stop, shown under a posted reply while it grows (the core ends the stream when it is pressed). */
  stopButton?: StopBlock;
}

export interface SentReply {
  rendered?: RenderedReply;
  /** Timestamps of the messages that hold the answer. */
  messageTs: string[];
  /** The reply ended early: a message of it was deleted, or the signal stopped it. */
  stopped?: 'deleted' | 'aborted';
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
    ...(options.onPosted && { onPosted: options.onPosted }),
    ...(options.stopButton && { controls: [options.stopButton] }),
  });
  let statusShown = false;
  const status = options.status;
  let rendered: RenderedReply | undefined;
  const signal = options.signal;
  const onAbort = () => {
    if (signal?.reason instanceof MessageGoneError && signal.reason.handle !== undefined) surface.messageDeleted(signal.reason.handle);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
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
      { emptyText: EMPTY_TEXT, ...(signal && { signal }) },
    );
  } catch (error) {
    logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be shown');
  }
  signal?.removeEventListener('abort', onAbort);
  let stopped = rendered?.stopped;
  if (stopped) await surface.abandon();
  else {
    try {
      await surface.finish(rendered && !surface.stoppedByUser ? finalBlocks(rendered, options.feedbackId) : []);
    } catch (error) {
      logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be finished');
    }
    if (surface.deleted) stopped = 'deleted';
  }
  if (statusShown && !surface.opened) await options.clearStatus?.().catch(() => {});
  const sent: SentReply = { ...(rendered && { rendered }), messageTs: surface.messageTs, ...(stopped && { stopped }) };
  if (!stopped && rendered && !surface.stoppedByUser) await shareExtras(deps, options, rendered);
  return sent;
}

function finalBlocks(rendered: RenderedReply, feedbackId: string | undefined): AnswerBlock[] {
  return [...citationBlocks(rendered.citations), ...(feedbackId ? [feedbackBlock(feedbackId)] : [])];
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
