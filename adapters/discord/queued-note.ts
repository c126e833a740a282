import { Routes, type APIMessage, type REST } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { isUnknownMessage } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';

/**
 * A line under a question that waits its turn in the conversation (a reply or an approval ahead of it), so the wait
 * shows; it goes once the question is being answered.
 */
export class QueuedNote {
  readonly #rest: REST;
  readonly #channelId: string;
  readonly #questionId: string;
  readonly #logger: Logger;
  #posted: Promise<string | undefined> | undefined;
  #cleared = false;

  constructor(rest: REST, channelId: string, questionId: string, logger: Logger) {
    this.#rest = rest;
    this.#channelId = channelId;
    this.#questionId = questionId;
    this.#logger = logger;
  }

  show(text: string): void {
    if (this.#posted || this.#cleared) return;
    const body = {
      content: `⏳ _${text.charAt(0).toUpperCase()}${text.slice(1)}_`,
      allowed_mentions: NO_MENTIONS_BODY,
      message_reference: { message_id: this.#questionId, fail_if_not_exists: false },
    };
    this.#posted = (this.#rest.post(Routes.channelMessages(this.#channelId), { body }) as Promise<APIMessage>).then(
      (message) => message.id,
      (error: unknown) => {
        this.#logger.debug({ err: error }, 'a queued note could not be posted');
        return undefined;
      },
    );
  }

  async clear(): Promise<void> {
    this.#cleared = true;
    const id = await this.#posted;
    this.#posted = undefined;
    if (id === undefined) return;
    await this.#rest.delete(Routes.channelMessage(this.#channelId, id)).catch((error: unknown) => {
      if (!isUnknownMessage(error)) this.#logger.warn({ err: error }, 'a queued note could not be removed');
    });
  }
}
