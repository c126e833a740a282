import { createHash } from 'node:crypto';
import { Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody, type SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { DiscordSurface, type EditBody, type MessageBody } from './discord-surface.ts';
import { NO_MENTIONS, NO_MENTIONS_BODY } from './mentions.ts';
import { ANY_ID, routeKey, type RouteRateLimits } from './route-rate-limits.ts';

/** Discord's limit on a nonce. */
const NONCE_CHARS = 25;

/** The nonce of the `part`th message one occurrence posts: the same on every attempt at it, at most 25 characters. */
export function postNonce(idempotencyKey: string, part: number): string {
  return createHash('sha256').update(`${idempotencyKey}#${part}`).digest('base64url').slice(0, NONCE_CHARS);
}

export interface ScheduledSurfaceOptions {
  channel: SendableChannels;
  /** The occurrence's idempotency key: each message's nonce derives from it. */
  idempotencyKey: string;
  rateLimits: RouteRateLimits;
  logger: Logger;
  uploadLimitBytes: number;
}

/**
 * A scheduled run's reply in a channel, thread or DM. Every message it creates carries a nonce derived from the
 * occurrence with `enforce_nonce`, so a run retried after a crash gets back the messages the first attempt posted
 * (and edits them) instead of posting them again. Nobody is pinged.
 */
export class ScheduledSurface extends DiscordSurface {
  readonly uploadLimitBytes: number;
  readonly #channel: SendableChannels;
  readonly #key: string;
  #sent = 0;

  constructor(options: ScheduledSurfaceOptions) {
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
    this.#key = options.idempotencyKey;
    this.uploadLimitBytes = options.uploadLimitBytes;
  }

  protected async send(body: MessageBody): Promise<string> {
    const nonce = postNonce(this.#key, this.#sent++);
    if (body.files !== undefined) {
      return (await this.#channel.send({ ...body, allowedMentions: NO_MENTIONS, nonce, enforceNonce: true })).id;
    }
    const { content, embeds, components, flags } = body;
    const json: RESTPostAPIChannelMessageJSONBody = {
      ...(content !== undefined && { content }),
      ...(embeds !== undefined && { embeds }),
      ...(components !== undefined && { components }),
      ...(flags !== undefined && { flags }),
      allowed_mentions: NO_MENTIONS_BODY,
      nonce,
      enforce_nonce: true,
    };
    return ((await this.#channel.client.rest.post(Routes.channelMessages(this.#channel.id), { body: json })) as APIMessage).id;
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
}
