import { Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody, type SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { DiscordSurface, type EditBody, type MessageBody } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';
import { ANY_ID, routeKey, type RouteRateLimits } from './route-rate-limits.ts';

export interface ChannelMessageSurfaceOptions {
  channel: SendableChannels;
  rateLimits: RouteRateLimits;
  logger: Logger;
  uploadLimitBytes: number;
}

/**
 * A reply the bot posts itself in a channel, thread or DM, paced by that channel's message routes. Text and embeds
 * go to the REST routes directly: discord.js's channel.send and messages.edit build a Message from every answer
 * (an edit clones the cached one) that Herald never reads, about a millisecond of CPU per reply that other replies
 * wait for; the gateway's echo of each message keeps discord.js's cache as it was. Nobody is pinged.
 */
export abstract class ChannelMessageSurface extends DiscordSurface {
  readonly uploadLimitBytes: number;
  protected readonly channel: SendableChannels;

  constructor(options: ChannelMessageSurfaceOptions) {
    const { channel, rateLimits } = options;
    super(
      {
        rateLimits,
        createKey: routeKey('POST', `/channels/${channel.id}/messages`),
        editKey: routeKey('PATCH', `/channels/${channel.id}/messages/${ANY_ID}`),
      },
      options.logger,
    );
    this.channel = channel;
    this.uploadLimitBytes = options.uploadLimitBytes;
  }

  /** Posts a message without files; `extra` adds fields such as a reply reference or a nonce. */
  protected async postJson({ content, embeds, components, flags }: MessageBody, extra: Partial<RESTPostAPIChannelMessageJSONBody>): Promise<string> {
    const body: RESTPostAPIChannelMessageJSONBody = {
      ...(content !== undefined && { content }),
      ...(embeds !== undefined && { embeds }),
      ...(components !== undefined && { components }),
      ...(flags !== undefined && { flags }),
      allowed_mentions: NO_MENTIONS_BODY,
      ...extra,
    };
    return ((await this.channel.client.rest.post(Routes.channelMessages(this.channel.id), { body })) as APIMessage).id;
  }

  protected async edit(handle: string, { content, embeds, components, flags }: EditBody): Promise<void> {
    await this.channel.client.rest.patch(Routes.channelMessage(this.channel.id, handle), {
      body: {
        ...(content !== undefined && { content }),
        ...(embeds !== undefined && { embeds }),
        ...(components !== undefined && { components }),
        ...(flags !== undefined && { flags: Array.isArray(flags) ? 0 : flags }),
        allowed_mentions: NO_MENTIONS_BODY,
      },
    });
  }
}
