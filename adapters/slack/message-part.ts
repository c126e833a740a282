/**
 * A reply as an ordinary message: chat.postMessage, then chat.update with the whole text as it grows (Slack's
 * `markdown_text` takes standard markdown). Updates are paced by the rate budget; a message Slack finds too long
 * keeps what it had and hands the rest on, so no text is lost.
 */
import { closeOpenFence } from '../../src/streaming/markdown-split.ts';
import type { ContextBlock } from './citation-blocks.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { OK, type PartOutcome, type ReplyPart, type ReplyTarget } from './reply-part.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

/** Notification text (the `text` beside blocks) needs no more than a preview. */
const FALLBACK_CHARS = 3000;

export class MessagePart implements ReplyPart {
  readonly kind = 'message';
  readonly ts: string;
  readonly #api: SlackApi;
  readonly #channel: string;
  /** Everything this message is meant to hold. */
  #text: string;
  /** How much of `#text` Slack has (the rest waits for the next update). */
  #sent: number;
  /** Whether the message shows `#text` exactly (not with a code fence closed for the moment). */
  #exact: boolean;

  private constructor(api: SlackApi, channel: string, ts: string, text: string, exact: boolean) {
    this.#api = api;
    this.#channel = channel;
    this.ts = ts;
    this.#text = text;
    this.#sent = text.length;
    this.#exact = exact;
  }

  static async post(api: SlackApi, target: ReplyTarget, text: string): Promise<MessagePart> {
    const shown = closeOpenFence(text);
    const posted = await api.call('chat.postMessage', target.channel, (c) =>
      c.chat.postMessage({
        channel: target.channel,
        ...(target.threadTs && { thread_ts: target.threadTs }),
        markdown_text: shown,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    return new MessagePart(api, target.channel, String(posted.ts), text, shown === text);
  }

  async append(delta: string): Promise<PartOutcome> {
    this.#text += delta;
    const shown = closeOpenFence(this.#text);
    return this.#update({ markdown_text: shown }, shown === this.#text);
  }

  async finish(delta: string, blocks: readonly ContextBlock[]): Promise<PartOutcome> {
    this.#text += delta;
    if (blocks.length === 0) {
      if (this.#exact && this.#sent === this.#text.length) return OK;
      return this.#update({ markdown_text: this.#text }, true);
    }
    const fallback = toMrkdwn(this.#text);
    return this.#update(
      {
        text: fallback.length > FALLBACK_CHARS ? `${fallback.slice(0, FALLBACK_CHARS - 1)}…` : fallback,
        blocks: [{ type: 'markdown', text: this.#text }, ...blocks],
      },
      true,
    );
  }

  async #update(content: { markdown_text: string } | { text: string; blocks: unknown[] }, exact: boolean): Promise<PartOutcome> {
    try {
      await this.#api.call('chat.update', this.#channel, (c) =>
        c.chat.update({ channel: this.#channel, ts: this.ts, ...content } as Parameters<typeof c.chat.update>[0]),
      );
      this.#sent = this.#text.length;
      this.#exact = exact;
      return OK;
    } catch (error) {
      if (slackErrorCode(error) !== 'msg_too_long') throw error;
      const rest = this.#text.slice(this.#sent);
      this.#text = this.#text.slice(0, this.#sent);
      return { status: 'overflow', rest };
    }
  }
}
