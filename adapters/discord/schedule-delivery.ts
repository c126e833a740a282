import {
  ChannelType,
  PermissionFlagsBits,
  Routes,
  type Client,
  type GuildBasedChannel,
  type RESTPostAPIChannelMessageJSONBody,
  type SendableChannels,
} from 'discord.js';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { RunAccess, ScheduleDelivery, ScheduledPost, PostOptions } from '../../src/schedules/schedule-delivery.ts';
import type { Schedule } from '../../src/schedules/schedule.ts';
import { renderReply } from '../../src/streaming/render-reply.ts';
import { splitMarkdown } from '../../src/streaming/markdown-split.ts';
import type { HistoryCache } from '../../src/workspace/history-cache.ts';
import { isAllowed } from './access-policy.ts';
import { askerWorkspace } from './asker-workspace.ts';
import { MESSAGE_LIMIT, textBody } from './discord-surface.ts';
import { finishReply } from './finish-reply.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';
import { postNonce, ScheduledSurface } from './scheduled-surface.ts';

const EMPTY_ANSWER = '_(The model returned an empty answer.)_';
const THREADS = new Set([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);

export interface DiscordScheduleDeliveryDeps {
  client: Client;
  core: Core;
  history: HistoryCache;
  rateLimits: RouteRateLimits;
  logger: Logger;
}

function label(channel: GuildBasedChannel): string {
  return `#${channel.name}`;
}

/**
 * Schedules on Discord: a run posts in the channel or thread it was set in (a reminder mentioning its creator and
 * nobody else) or in the creator's DMs, each message with a nonce derived from the occurrence and `enforce_nonce`,
 * so a run retried after a crash posts once. Before each run the creator must still be a member who may read and
 * post there, Herald must be able to post, and the operator's lists must allow it; the same check refuses a
 * schedule that could not run when it is set.
 */
export class DiscordScheduleDelivery implements ScheduleDelivery {
  readonly platform = 'discord';
  readonly idempotentPosts = true;
  readonly #deps: DiscordScheduleDeliveryDeps;

  constructor(deps: DiscordScheduleDeliveryDeps) {
    this.#deps = deps;
  }

  async mayRun(schedule: Schedule): Promise<RunAccess> {
    const access = await this.#targetAccess(schedule);
    if (!access.allowed || !schedule.source) return access;
    const refusal = await this.#sourceRefusal(schedule.source, schedule.creator.id);
    return refusal ? { allowed: false, reason: refusal } : access;
  }

  /** Whether the creator and Herald may post where the schedule runs, and what they can read from there. */
  async #targetAccess(schedule: Schedule): Promise<RunAccess> {
    const { client, core, history } = this.#deps;
    const askerId = schedule.creator.id;
    const guildId = schedule.workspaceId ?? null;
    if (schedule.target.type === 'direct') {
      const dm = await client.users.createDM(askerId).catch(() => null);
      if (!dm) return { allowed: false, reason: 'I cannot send you direct messages' };
      return {
        allowed: true,
        workspace: askerWorkspace({ client, askerId, channelId: dm.id, channel: dm, guildId, isDirectMessage: true }, core, history),
      };
    }
    const channelId = schedule.target.threadId ?? schedule.target.channelId;
    // Fetched afresh, as is the creator: permissions may have changed since the schedule was set.
    const channel = await client.channels.fetch(channelId, { force: true }).catch(() => null);
    if (!channel?.isTextBased() || !channel.isSendable()) return { allowed: false, reason: 'I cannot see the channel it posts in' };
    if (!channel.isDMBased()) {
      const refusal = await this.#refusal(channel, askerId);
      if (refusal) return { allowed: false, reason: refusal };
    }
    const workspace = askerWorkspace({ client, askerId, channelId, channel, guildId, isDirectMessage: channel.isDMBased() }, core, history);
    return { allowed: true, workspace };
  }

  async post(schedule: Schedule, post: ScheduledPost, { idempotencyKey, signal }: PostOptions): Promise<void> {
    const channel = await this.#destination(schedule);
    signal.throwIfAborted();
    if (post.type === 'reminder') return this.#remind(channel, schedule, post.text, idempotencyKey);
    const { rateLimits, logger, core } = this.#deps;
    const surface = new ScheduledSurface({ channel, idempotencyKey, rateLimits, logger, uploadLimitBytes: core.config.media.uploadLimitBytes });
    try {
      const rendered = await renderReply(
        post.stream,
        surface,
        { failed: (error) => logger.error({ err: error, schedule: schedule.id }, 'scheduled reply stream failed') },
        { emptyText: EMPTY_ANSWER, signal },
      );
      signal.throwIfAborted();
      await finishReply(surface, rendered, { showReasoning: false, logger });
    } finally {
      surface.dispose();
    }
  }

  async notify(schedule: Schedule, text: string): Promise<void> {
    const dm = await this.#deps.client.users.createDM(schedule.creator.id);
    for (const content of splitMarkdown(text, MESSAGE_LIMIT)) {
      await this.#deps.client.rest.post(Routes.channelMessages(dm.id), { body: { ...textBody(content), allowed_mentions: NO_MENTIONS_BODY } });
    }
  }

  /** Why the creator's summary may not read the channel it summarizes, or undefined when it may. */
  async #sourceRefusal(source: NonNullable<Schedule['source']>, askerId: string): Promise<string | undefined> {
    const channel = await this.#deps.client.channels.fetch(source.threadId ?? source.channelId, { force: true }).catch(() => null);
    if (!channel?.isTextBased()) return 'I cannot see the channel it summarizes';
    return channel.isDMBased() ? undefined : this.#refusal(channel, askerId, 'read');
  }

  /** Why the creator's run may not post in (or, for a summary's source, read) this server channel, or undefined when it may. */
  async #refusal(channel: GuildBasedChannel, askerId: string, needs: 'post' | 'read' = 'post'): Promise<string | undefined> {
    const { client, core } = this.#deps;
    const member = await channel.guild.members.fetch({ user: askerId, force: true }).catch(() => undefined);
    if (!member) return `you are not a member of ${channel.guild.name}`;
    const thread = THREADS.has(channel.type);
    const send = needs === 'read' ? 0n : thread ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages;
    const read = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;
    const yours = needs === 'read' ? 'read' : 'read and post in';
    if (!channel.permissionsFor(member)?.has(read | send)) return `you cannot ${yours} ${label(channel)}`;
    const me = channel.guild.members.me ?? (await channel.guild.members.fetch(client.user!.id).catch(() => undefined));
    const mine = needs === 'read' ? read : PermissionFlagsBits.ViewChannel | send;
    if (!me || !channel.permissionsFor(me)?.has(mine)) return `I cannot ${needs === 'read' ? 'read' : 'post in'} ${label(channel)}`;
    const parentId = channel.isThread() ? channel.parentId : null;
    const channelIds = parentId ? [channel.id, parentId] : [channel.id];
    if (!isAllowed(core.config.discord?.access, { guildId: channel.guildId, channelIds, roleIds: [...member.roles.cache.keys()] })) {
      return `Herald isn't available in ${label(channel)}`;
    }
    return undefined;
  }

  async #destination(schedule: Schedule): Promise<SendableChannels> {
    const { client } = this.#deps;
    if (schedule.target.type === 'direct') return client.users.createDM(schedule.creator.id);
    const channel = await client.channels.fetch(schedule.target.threadId ?? schedule.target.channelId);
    if (!channel?.isSendable()) throw new Error(`channel ${schedule.target.channelId} cannot take messages`);
    return channel;
  }

  /** The reminder, mentioning its creator (in a channel) and nobody else, in as many messages as it takes. */
  async #remind(channel: SendableChannels, schedule: Schedule, text: string, idempotencyKey: string): Promise<void> {
    const inChannel = !channel.isDMBased();
    const creatorId = schedule.creator.id;
    const parts = splitMarkdown(`${inChannel ? `<@${creatorId}> ` : ''}⏰ ${text}`, MESSAGE_LIMIT);
    for (const [part, content] of parts.entries()) {
      const body: RESTPostAPIChannelMessageJSONBody = {
        ...textBody(content),
        allowed_mentions: inChannel && part === 0 ? { parse: [], users: [creatorId] } : NO_MENTIONS_BODY,
        nonce: postNonce(idempotencyKey, part),
        enforce_nonce: true,
      };
      await this.#deps.client.rest.post(Routes.channelMessages(channel.id), { body });
    }
  }
}
