import type { ReplyEvent, ReplyStream } from '../../src/conversation/types.ts';
import type { Logger } from '../../src/log/logger.ts';
import { deleteMessages } from './delete-messages.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackApi } from './slack-api.ts';

/**
 * A line in the thread of a question that waits its turn in the conversation (a reply or an approval ahead of it), so
 * the wait shows; it goes once the question is being answered.
 */
export class QueuedNote {
  readonly #api: SlackApi;
  readonly #target: ReplyTarget;
  readonly #logger: Logger;
  #posted: Promise<string | undefined> | undefined;
  #cleared = false;

  constructor(api: SlackApi, target: ReplyTarget, logger: Logger) {
    this.#api = api;
    this.#target = target;
    this.#logger = logger;
  }

  /** `stream` with the note shown while its status says it is queued; ending it ends `stream` at once. */
  around(stream: ReplyStream): ReplyStream {
    return {
      [Symbol.asyncIterator]: () => {
        const events = stream[Symbol.asyncIterator]();
        return {
          next: async (): Promise<IteratorResult<ReplyEvent>> => {
            const next = await events.next();
            if (!next.done && next.value.type === 'status' && next.value.phase === 'queued') this.#show(next.value.text);
            else await this.clear();
            return next;
          },
          return: async (): Promise<IteratorResult<ReplyEvent>> => {
            await events.return?.();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  async clear(): Promise<void> {
    this.#cleared = true;
    const ts = await this.#posted;
    this.#posted = undefined;
    if (ts === undefined) return;
    await deleteMessages(this.#api, this.#target.channel, [ts]).catch((error: unknown) =>
      this.#logger.warn({ err: error }, 'a queued note could not be removed'),
    );
  }

  #show(text: string): void {
    if (this.#posted || this.#cleared) return;
    const { channel, threadTs } = this.#target;
    const shown = `⏳ _${text.charAt(0).toUpperCase()}${text.slice(1)}_`;
    this.#posted = this.#api
      .call('chat.postMessage', channel, (c) => c.chat.postMessage({ channel, text: shown, ...(threadTs && { thread_ts: threadTs }) }))
      .then(
        (posted) => String(posted.ts),
        (error: unknown) => {
          this.#logger.debug({ err: error }, 'a queued note could not be posted');
          return undefined;
        },
      );
  }
}
