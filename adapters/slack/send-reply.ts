/**
 * One reply, start to end: the core's stream rendered on a SlackReplySurface, the sources as context blocks in
 * the last call, then files the reply produced and, when asked for, the reasoning as a snippet (Slack shows it
 * collapsed). A message of the reply deleted meanwhile stops it where it is; the question deleted (`withdrawn`)
 * stops it and deletes what it had posted.
 */
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { renderReply, type RenderedReply } from '../../src/streaming/render-reply.ts';
import { MessageGoneError } from '../../src/streaming/surface.ts';
import { citationBlocks } from './citation-blocks.ts';
import type { DeletionWatch } from './deletion-watch.ts';
import type { ReplyTarget } from './reply-part.ts';
import { SlackReplySurface } from './reply-surface.ts';
import type { SlackApi } from './slack-api.ts';
import type { StreamingSwitch } from './stream-part.ts';
import { shareFile, type FileToShare } from './upload.ts';

export interface ReplyDeps {
  api: SlackApi;
  streaming: StreamingSwitch;
  logger: Logger;
  /** Tells of messages of the reply deleted while it is written (else only Slack's answer to the next write does). */
  deletions?: DeletionWatch;
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
  /** Aborted when the question is deleted: the reply stops and what it posted is deleted. */
  withdrawn?: AbortSignal;
}

export interface SentReply {
  rendered?: RenderedReply;
  /** Timestamps of the messages that hold the answer. */
  messageTs: string[];
  /** The reply ended early: a message of it was deleted, or its question was (and the answer with it). */
  stopped?: 'deleted' | 'withdrawn';
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
  const deleted = new AbortController();
  const unwatch = deps.deletions?.watch(options.target.channel, (ts) => {
    if (surface.messageDeleted(ts)) deleted.abort(new MessageGoneError(ts));
  });
  const signal = options.withdrawn ? AbortSignal.any([options.withdrawn, deleted.signal]) : deleted.signal;
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
      { emptyText: EMPTY_TEXT, signal },
    );
  } catch (error) {
    logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be shown');
  }
  let stopped: SentReply['stopped'] = rendered?.stopped === 'aborted' ? 'withdrawn' : rendered?.stopped;
  if (stopped) await surface.abandon();
  else {
    try {
      await surface.finish(rendered && !surface.stoppedByUser ? citationBlocks(rendered.citations) : []);
    } catch (error) {
      logger.error({ err: error, channel: options.target.channel }, 'Slack reply could not be finished');
    }
    if (surface.deleted) stopped = 'deleted';
  }
  unwatch?.();
  if (statusShown && !surface.opened) await options.clearStatus?.().catch(() => {});
  const sent: SentReply = { ...(rendered && { rendered }), messageTs: surface.messageTs, ...(stopped && { stopped }) };
  const where = { channel: options.target.channel, messages: sent.messageTs };
  if (stopped === 'deleted') logger.info(where, 'reply deleted while it was being written; stopped answering');
  else if (stopped === 'withdrawn') {
    logger.info(where, 'question deleted while it was answered; stopped and removed the answer');
    await surface.remove().catch((error: unknown) => logger.warn({ err: error, ...where }, 'removing the answer to a deleted question failed'));
  } else if (rendered && !surface.stoppedByUser) await shareExtras(deps, options, rendered);
  return sent;
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
