import { createHash } from 'node:crypto';
import { ChannelMessageSurface, type ChannelMessageSurfaceOptions } from './channel-message-surface.ts';
import type { MessageBody } from './discord-surface.ts';
import { NO_MENTIONS } from './mentions.ts';

/** Discord's limit on a nonce. */
const NONCE_CHARS = 25;

/** The nonce of the `part`th message one occurrence posts: the same on every attempt at it, at most 25 characters. */
export function postNonce(idempotencyKey: string, part: number): string {
  return createHash('sha256').update(`${idempotencyKey}#${part}`).digest('base64url').slice(0, NONCE_CHARS);
}

export interface ScheduledSurfaceOptions extends ChannelMessageSurfaceOptions {
  /** The occurrence's idempotency key: each message's nonce derives from it. */
  idempotencyKey: string;
}

/**
 * A scheduled run's reply in a channel, thread or DM. Every message it creates carries a nonce derived from the
 * occurrence with `enforce_nonce`, so a run retried after a crash gets back the messages the first attempt posted
 * (and edits them) instead of posting them again. Nobody is pinged.
 */
export class ScheduledSurface extends ChannelMessageSurface {
  readonly #key: string;
  #sent = 0;

  constructor(options: ScheduledSurfaceOptions) {
    super(options);
    this.#key = options.idempotencyKey;
  }

  protected async send(body: MessageBody): Promise<string> {
    const nonce = postNonce(this.#key, this.#sent++);
    if (body.files !== undefined) {
      return (await this.channel.send({ ...body, allowedMentions: NO_MENTIONS, nonce, enforceNonce: true })).id;
    }
    return this.postJson(body, { nonce, enforce_nonce: true });
  }
}
