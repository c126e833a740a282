import type { SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { DiscordSurface, type EditBody, type MessageBody } from './discord-surface.ts';
import { NO_MENTIONS } from './mentions.ts';
import { ANY_ID, routeKey, type RateLimitBook } from './rate-limit-book.ts';

export interface ChannelSurfaceOptions {
  channel: SendableChannels;
  /** The user's message; the reply's first message answers it as a Discord reply (without pinging). */
  replyTo?: string;
  book: RateLimitBook;
  logger: Logger;
  uploadLimitBytes: number;
  /** Called with the id of every message the reply posts, as soon as it exists. */
  onPosted?(messageId: string): void;
}

/** A reply posted in a channel (or thread, or DM) by the bot itself. */
export class ChannelSurface extends DiscordSurface {
  readonly uploadLimitBytes: number;
  readonly #channel: SendableChannels;
  readonly #onPosted: ((messageId: string) => void) | undefined;
  #replyTo: string | undefined;

  constructor(options: ChannelSurfaceOptions) {
    const { channel, book } = options;
    super(
      {
        book,
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
    const message = await this.#channel.send({
      ...body,
      allowedMentions: NO_MENTIONS,
      ...(replyTo !== undefined && { reply: { messageReference: replyTo, failIfNotExists: false } }),
    });
    this.#replyTo = undefined;
    this.#onPosted?.(message.id);
    return message.id;
  }

  protected async edit(handle: string, body: EditBody): Promise<void> {
    await this.#channel.messages.edit(handle, { ...body, allowedMentions: NO_MENTIONS });
  }
}
