import type { RunAccess, ScheduleDelivery, ScheduledPost, PostOptions } from '../../src/schedules/schedule-delivery.ts';
import type { Schedule } from '../../src/schedules/schedule.ts';
import { escapeMrkdwn } from './mrkdwn.ts';
import type { SlackRuntime } from './runtime.ts';
import { sendReply } from './send-reply.ts';
import { slackErrorCode } from './slack-api.ts';
import type { ConversationFacts } from './workspace-access.ts';
import { isMember } from './workspace-access.ts';

const GONE = new Set(['channel_not_found', 'not_in_channel']);

type Facts = ConversationFacts & { is_archived?: boolean };

/** Where a run posts: a conversation (its thread), or the creator's DM with Herald, which chat.postMessage opens by user id. */
function placeOf(schedule: Schedule): { channel: string; threadTs?: string; isDirectMessage: boolean } {
  if (schedule.target.type === 'direct') return { channel: schedule.creator.id, isDirectMessage: true };
  const { channelId, threadId } = schedule.target;
  return { channel: channelId, ...(threadId !== undefined && { threadTs: threadId }), isDirectMessage: channelId.startsWith('D') };
}

/**
 * Schedules on Slack: a run posts in the conversation (and thread) it was set in, a reminder mentioning its creator
 * and nobody else, or in the creator's DM with Herald. Slack has no idempotency key for posts, so the scheduler
 * reports a run interrupted mid-post instead of repeating it. When it is set, and again before each run, Herald must
 * be in the conversation and the creator an active member of it.
 */
export class SlackScheduleDelivery implements ScheduleDelivery {
  readonly platform = 'slack';
  readonly idempotentPosts = false;
  readonly #rt: SlackRuntime;

  constructor(rt: SlackRuntime) {
    this.#rt = rt;
  }

  async mayRun(schedule: Schedule): Promise<RunAccess> {
    const rt = this.#rt;
    const creatorId = schedule.creator.id;
    const place = placeOf(schedule);
    const { source } = schedule;
    // A summary also reads its source, which Herald and its creator must be in as well.
    const refusal =
      (await this.#refusal(creatorId, place)) ??
      (source && (await this.#refusal(creatorId, { channel: source.channelId, isDirectMessage: source.channelId.startsWith('D') })));
    if (refusal) return { allowed: false, reason: refusal };
    const workspace = rt.history.forQuestion(
      creatorId,
      { channel: place.channel, isDirectMessage: place.isDirectMessage, ...(place.threadTs !== undefined && { threadTs: place.threadTs }) },
      { heraldId: rt.identity.botUserId },
    );
    return { allowed: true, workspace };
  }

  async post(schedule: Schedule, post: ScheduledPost, { signal }: PostOptions): Promise<void> {
    const rt = this.#rt;
    const { channel, threadTs, isDirectMessage } = placeOf(schedule);
    signal.throwIfAborted();
    if (post.type === 'reminder') {
      const mention = isDirectMessage ? '' : `<@${schedule.creator.id}> `;
      await rt.api.call('chat.postMessage', channel, (c) =>
        c.chat.postMessage({
          channel,
          ...(threadTs !== undefined && { thread_ts: threadTs }),
          text: `${mention}⏰ ${escapeMrkdwn(post.text)}`,
          unfurl_links: false,
          unfurl_media: false,
        }),
      );
      return;
    }
    const sent = await sendReply(rt, post.stream, {
      target: { channel, ...(threadTs !== undefined && { threadTs }), recipient: { userId: schedule.creator.id, teamId: rt.identity.teamId } },
      signal,
    });
    signal.throwIfAborted();
    if (!sent.rendered || sent.messageTs.length === 0) throw new Error(`the scheduled reply of ${schedule.id} could not be posted`);
  }

  async notify(schedule: Schedule, text: string): Promise<void> {
    const creatorId = schedule.creator.id;
    await this.#rt.api.call('chat.postMessage', creatorId, (c) =>
      c.chat.postMessage({ channel: creatorId, text: escapeMrkdwn(text), unfurl_links: false, unfurl_media: false }),
    );
  }

  /** Why the creator's run may not go ahead there, or undefined when it may. */
  async #refusal(creatorId: string, place: { channel: string; isDirectMessage: boolean }): Promise<string | undefined> {
    const { api } = this.#rt;
    const user = (await api.call('users.info', undefined, (c) => c.users.info({ user: creatorId }))).user as { deleted?: boolean } | undefined;
    if (!user || user.deleted) return 'your account is not active';
    if (place.isDirectMessage) return undefined;
    let facts: Facts | undefined;
    try {
      facts = (await api.call('conversations.info', undefined, (c) => c.conversations.info({ channel: place.channel }))).channel as Facts | undefined;
    } catch (error) {
      if (!GONE.has(slackErrorCode(error) ?? '')) throw error;
    }
    const name = facts?.name ? `#${facts.name}` : 'that channel';
    if (!facts || facts.is_member === false) return `I am not in ${name} (invite me with \`/invite @${this.#rt.identity.botName ?? 'Herald'}\`)`;
    if (facts.is_archived) return `${name} was archived`;
    if (!(await isMember(api, api.client, place.channel, creatorId))) return `you are not in ${name}`;
    return undefined;
  }
}
