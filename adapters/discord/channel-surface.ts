import { Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody, type SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { DiscordSurface, isUnknownMessage, type EditBody, type MessageBody } from './discord-surface.ts';
import { NO_MENTIONS, NO_MENTIONS_BODY } from './mentions.ts';
import { ANY_ID, routeKey, type RouteRateLimits } from './route-rate-limits.ts';

export interface ChannelSurfaceOptions {
  channel: SendableChannels;
  /** The user's message; the reply's first message answers it as a Discord reply (without pinging). */
  replyTo?: string;
  rateLimits: RouteRateLimits;
  logger: Logger;
  uploadLimitBytes: number;
  /** Called with the id of every message the reply posts, as soon as it exists. */
  onPosted?(messageId: string): void;
}

/**
 * A reply posted in a channel (or thread, or DM) by the bot itself. Text and embeds go to the REST routes
 * directly: discord.js's channel.send and messages.edit build a Message from every answer (an edit clones the
 * cached one) that Herald never reads, about a millisecond of CPU per reply that other replies wait for; the
 * gateway's echo of each message keeps discord.js's cache as it was. Uploads go through channel.send, which builds
 * their multipart body.
 */
export class ChannelSurface extends DiscordSurface {
  readonly uploadLimitBytes: number;
  readonly #channel: SendableChannels;
  readonly #onPosted: ((messageId: string) => void) | undefined;
  #replyTo: string | undefined;

  constructor(options: ChannelSurfaceOptions) {
    const { channel, rateLimits } = options;
    super(
      {
        rateLimits,
        createKey: routeKey('POST', `/channels/${channel.id}/messages`),
        editKey: routeKey('PATCH', `/channels/${channel.id}/messages/${ANY_ID}`),
      },
      options.logger,
    );
    this.#channel = channel;
    this.#replyTo = options.replyTo;
    this.uploadLimitBytes = options.uploadLimitBytes;
    this.#onPosted = options.onPosted;
  }

  protected async send(body: MessageBody): Promise<string> {
    const replyTo = this.#replyTo;
    const id = body.files === undefined ? await this.#post(body, replyTo) : await this.#upload(body, replyTo);
    this.#replyTo = undefined;
    this.#onPosted?.(id);
    return id;
  }

  protected async edit(handle: string, { content, embeds, components, flags }: EditBody): Promise<void> {
    await this.#channel.client.rest.patch(Routes.channelMessage(this.#channel.id, handle), {
      body: {
        ...(content !== undefined && { content }),
        ...(embeds !== undefined && { embeds }),
        ...(components !== undefined && { components }),
        ...(flags !== undefined && { flags: Array.isArray(flags) ? 0 : flags }),
        allowed_mentions: NO_MENTIONS_BODY,
      },
    });
  }

  /** Deletes messages of this reply (its question was withdrawn); one already deleted is left at that. */
  async remove(messageIds: readonly string[]): Promise<void> {
    for (const id of messageIds) {
      await this.#channel.client.rest.delete(Routes.channelMessage(this.#channel.id, id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    }
  }

  async #post({ content, embeds, components, flags }: MessageBody, replyTo: string | undefined): Promise<string> {
    const body: RESTPostAPIChannelMessageJSONBody = {
      ...(content !== undefined && { content }),
      ...(embeds !== undefined && { embeds }),
      ...(components !== undefined && { components }),
      ...(flags !== undefined && { flags }),
      allowed_mentions: NO_MENTIONS_BODY,
      ...(replyTo !== undefined && { message_reference: { message_id: replyTo, fail_if_not_exists: false } }),
    };
    const message = (await this.#channel.client.rest.post(Routes.channelMessages(this.#channel.id), { body })) as APIMessage;
    return message.id;
  }

  async #upload(body: MessageBody, replyTo: string | undefined): Promise<string> {
    const message = await this.#channel.send({
      ...body,
      allowedMentions: NO_MENTIONS,
      ...(replyTo !== undefined && { reply: { messageReference: replyTo, failIfNotExists: false } }),
    });
    return message.id;
  }
}
