/**
 * Replies only one user sees, in a channel or a thread of it (chat.postEphemeral). Slack keeps no ephemeral
 * message and cannot edit one, so a streamed answer is posted once each message of it is complete. Where Herald is
 * not a member (a DM between two people), the interaction's response_url delivers the text instead.
 */
import type { RespondFn } from '@slack/bolt';
import type { ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Citation } from '../../src/service/types.ts';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import type { ReplySurface } from '../../src/streaming/surface.ts';
import type { ApprovalContent } from './approval-blocks.ts';
import { citationBlocks, type ContextBlock } from './citation-blocks.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

// Slack advises keeping a message's text within 4,000 characters; mrkdwn escaping makes it a little longer.
const MAX_CHARS = 3500;
const EMPTY_TEXT = '_I have nothing to add to that._';
const NOT_A_MEMBER = new Set(['not_in_channel', 'channel_not_found']);
const MAX_BLOCKS = 50;

export interface EphemeralTarget {
  channel: string;
  threadTs?: string;
  userId: string;
  /** The interaction's response_url, for conversations Herald is not in. */
  respond: RespondFn;
}

/** Posts `text` (markdown) for the target's user alone, in as many messages as it takes. */
export async function postEphemeral(api: SlackApi, target: EphemeralTarget, text: string): Promise<void> {
  for (const part of splitMarkdown(text, MAX_CHARS)) {
    const mrkdwn = toMrkdwn(part);
    try {
      await api.call('chat.postEphemeral', target.channel, (c) =>
        c.chat.postEphemeral({ channel: target.channel, user: target.userId, text: mrkdwn, ...(target.threadTs && { thread_ts: target.threadTs }) }),
      );
    } catch (error) {
      if (!NOT_A_MEMBER.has(slackErrorCode(error) ?? '')) throw error;
      await target.respond({ response_type: 'ephemeral', text: mrkdwn });
    }
  }
}

/** A reply surface whose messages are each posted once, complete: the text only ever grows until `close`. */
class EphemeralSurface implements ReplySurface {
  readonly mode = 'append';
  readonly maxLength = MAX_CHARS;
  readonly #api: SlackApi;
  readonly #target: EphemeralTarget;
  readonly #texts = new Map<string, string>();
  #opened = 0;

  constructor(api: SlackApi, target: EphemeralTarget) {
    this.#api = api;
    this.#target = target;
  }

  async open(text: string): Promise<string> {
    const handle = String(++this.#opened);
    this.#texts.set(handle, text);
    return handle;
  }

  async update(handle: string, text: string): Promise<void> {
    this.#texts.set(handle, (this.#texts.get(handle) ?? '') + text);
  }

  async close(handle: string, text: string): Promise<void> {
    const whole = (this.#texts.get(handle) ?? '') + text;
    this.#texts.delete(handle);
    if (whole.trim() !== '') await postEphemeral(this.#api, this.#target, whole);
  }

  delayMs(): number {
    return 0;
  }
}

/** Renders an answer for the target's user alone: transcripts, text, notices and any error line, then its sources. */
export async function replyEphemerally(deps: { api: SlackApi; logger: Logger }, target: EphemeralTarget, stream: ReplyStream): Promise<void> {
  const rendered = await renderReply(
    stream,
    new EphemeralSurface(deps.api, target),
    { failed: (error) => deps.logger.error({ err: error }, 'ephemeral reply stream failed') },
    { emptyText: EMPTY_TEXT },
  );
  if (rendered.citations.length > 0 && !rendered.stopped) await postEphemeralSources(deps.api, target, rendered.citations);
}

/** The numbered sources as their own ephemeral message under the answer: context blocks, within Block Kit's 50. */
async function postEphemeralSources(api: SlackApi, target: EphemeralTarget, citations: readonly Citation[]): Promise<void> {
  await postEphemeralBlocks(api, target, { text: 'Sources', blocks: citationBlocks(citations).slice(0, MAX_BLOCKS) });
}

/** Posts Block Kit `content` for the target's user alone (through the response_url where Herald is not a member). */
export async function postEphemeralBlocks(
  api: SlackApi,
  target: EphemeralTarget,
  content: { text: string; blocks: ContextBlock[] | ApprovalContent['blocks'] },
): Promise<void> {
  const { blocks } = content;
  try {
    await api.call('chat.postEphemeral', target.channel, (c) =>
      c.chat.postEphemeral({
        channel: target.channel,
        user: target.userId,
        text: content.text,
        blocks,
        ...(target.threadTs && { thread_ts: target.threadTs }),
      }),
    );
  } catch (error) {
    if (!NOT_A_MEMBER.has(slackErrorCode(error) ?? '')) throw error;
    await target.respond({ response_type: 'ephemeral', text: content.text, blocks });
  }
}
