import { Routes } from 'discord.js';
import { ChannelMessageSurface, type ChannelMessageSurfaceOptions } from './channel-message-surface.ts';
import { isUnknownMessage, type MessageBody } from './discord-surface.ts';
import { NO_MENTIONS } from './mentions.ts';

export interface ChannelSurfaceOptions extends ChannelMessageSurfaceOptions {
  /** The user's message; the reply's first message answers it as a Discord reply (without pinging). */
  replyTo?: string;
  /** Called with the id of every message the reply posts, as soon as it exists. */
  onPosted?(messageId: string): void;
}

/**
 * A reply posted in a channel (or thread, or DM) by the bot itself, its first message answering the user's.
 * Uploads go through channel.send, which builds their multipart body.
 */
export class ChannelSurface extends ChannelMessageSurface {
  readonly #onPosted: ((messageId: string) => void) | undefined;
  #replyTo: string | undefined;

  constructor(options: ChannelSurfaceOptions) {
    super(options);
    this.#replyTo = options.replyTo;
    this.#onPosted = options.onPosted;
  }

  protected async send(body: MessageBody): Promise<string> {
    const replyTo = this.#replyTo;
    const id = body.files === undefined ? await this.#post(body, replyTo) : await this.#upload(body, replyTo);
    this.#replyTo = undefined;
    this.#onPosted?.(id);
    return id;
  }

  /** Deletes messages of this reply (its question was withdrawn); one already deleted is left at that. */
  async remove(messageIds: readonly string[]): Promise<void> {
    for (const id of messageIds) {
      await this.channel.client.rest.delete(Routes.channelMessage(this.channel.id, id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    }
  }

  #post(body: MessageBody, replyTo: string | undefined): Promise<string> {
    return this.postJson(body, {
      ...(replyTo !== undefined && { message_reference: { message_id: replyTo, fail_if_not_exists: false } }),
    });
  }

  async #upload(body: MessageBody, replyTo: string | undefined): Promise<string> {
    const message = await this.channel.send({
      ...body,
      allowedMentions: NO_MENTIONS,
      ...(replyTo !== undefined && { reply: { messageReference: replyTo, failIfNotExists: false } }),
    });
    return message.id;
  }
}
