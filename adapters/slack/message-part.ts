/**
 * A reply as an ordinary message: chat.postMessage, then chat.update with the whole text as it grows (Slack's
 * `markdown_text` takes standard markdown).
 *
 * chat.update is limited per workspace (Tier 3), so a message is only shown while it grows when its final edit
 * can be promised: it holds a reservation of one chat.update from the moment it is posted, and that final edit
 * never waits. Progress edits only use calls that are free right now, leaving some over for other replies, and
 * are skipped otherwise (the text waits for the next one). A message that gets no reservation is held and posted
 * whole at its end with chat.postMessage, which Slack limits per channel only, so the answer lands complete and
 * promptly however many replies are under way. A message Slack finds too long hands the rest on, so no text is lost.
 */
import { closeOpenFence, splitHead } from '../../src/streaming/markdown-split.ts';
import type { ContextBlock } from './citation-blocks.ts';
import { defuseMentions } from './defuse-mentions.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { GONE_ERRORS, OK, type PartOutcome, type ReplyPart, type ReplyTarget } from './reply-part.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

/** Notification text (the `text` beside blocks) needs no more than a preview. */
const FALLBACK_CHARS = 3000;
/** chat.update calls a progress edit leaves free, so that new replies can still be shown as they grow. */
export const PROGRESS_EDIT_KEEP = 3;

type MarkdownBlock = { type: 'markdown'; text: string };
type Content = { markdown_text: string } | { text: string; blocks: [MarkdownBlock, ...ContextBlock[]] };

/** What Slack is sent: markdown with no live mention in it (the mrkdwn fallback escapes its own). */
function defused(content: Content): Content {
  if ('markdown_text' in content) return { markdown_text: defuseMentions(content.markdown_text) };
  const [markdown, ...sources] = content.blocks;
  return { text: content.text, blocks: [{ ...markdown, text: defuseMentions(markdown.text) }, ...sources] };
}

export class MessagePart implements ReplyPart {
  readonly kind = 'message';
  readonly #api: SlackApi;
  readonly #target: ReplyTarget;
  #ts = '';
  /** Everything this message is meant to hold. */
  #text: string;
  /** How much of `#text` Slack has (the rest waits for the next update). */
  #sent = 0;
  /** Whether the message shows `#text` exactly (not with a code fence closed for the moment). */
  #exact = false;
  /** Whether this message holds the reservation of its final chat.update. */
  #reserved = false;

  private constructor(api: SlackApi, target: ReplyTarget, text: string) {
    this.#api = api;
    this.#target = target;
    this.#text = text;
  }

  /** Posts `text` at once when its final edit can be promised, else holds it to be posted whole at the end. */
  static async open(api: SlackApi, target: ReplyTarget, text: string): Promise<MessagePart> {
    const part = new MessagePart(api, target, text);
    await part.#goLive();
    return part;
  }

  /** The message's timestamp; empty while it is held. */
  get ts(): string {
    return this.#ts;
  }

  /** Whether the message is waiting to be posted whole. */
  get held(): boolean {
    return this.#ts === '';
  }

  async append(delta: string): Promise<PartOutcome> {
    this.#text += delta;
    if (this.held) {
      await this.#goLive();
      return OK;
    }
    if (!this.#api.budget.tryTake(['chat.update'], undefined, PROGRESS_EDIT_KEEP)) return OK;
    const shown = closeOpenFence(this.#text);
    return this.#update({ markdown_text: shown }, shown === this.#text);
  }

  async finish(delta: string, blocks: readonly ContextBlock[]): Promise<PartOutcome> {
    this.#text += delta;
    try {
      if (this.held) return await this.#postWhole(blocks);
      if (blocks.length === 0 && this.#exact && this.#sent === this.#text.length) return OK;
      if (this.#reserved) {
        this.#reserved = false;
        await this.#api.budget.takeReserved('chat.update');
      } else {
        await this.#api.budget.take('chat.update');
      }
      return await this.#update(blocks.length === 0 ? { markdown_text: this.#text } : this.#withBlocks(blocks), true);
    } finally {
      this.release();
    }
  }

  /** Gives back the reservation of the final edit (the reply ended or failed without needing it). */
  release(): void {
    if (!this.#reserved) return;
    this.#reserved = false;
    this.#api.budget.release('chat.update');
  }

  async #goLive(): Promise<void> {
    if (!this.#api.budget.reserve('chat.update')) return;
    this.#reserved = true;
    const shown = closeOpenFence(this.#text);
    try {
      this.#ts = await this.#post({ markdown_text: shown });
    } catch (error) {
      this.release();
      throw error;
    }
    this.#sent = this.#text.length;
    this.#exact = shown === this.#text;
  }

  /** Posts the held text in one message, or as much as Slack takes when it finds the text too long. */
  async #postWhole(blocks: readonly ContextBlock[]): Promise<PartOutcome> {
    try {
      this.#ts = await this.#post(blocks.length === 0 ? { markdown_text: this.#text } : this.#withBlocks(blocks));
      this.#sent = this.#text.length;
      this.#exact = true;
      return OK;
    } catch (error) {
      if (slackErrorCode(error) !== 'msg_too_long' || this.#text.length < 2) throw error;
      const { head, rest } = splitHead(this.#text, Math.floor(this.#text.length / 2));
      this.#text = head;
      const outcome = await this.#postWhole([]);
      return { status: 'overflow', rest: outcome.status === 'overflow' ? outcome.rest + rest : rest };
    }
  }

  async #post(content: Content): Promise<string> {
    const { channel, threadTs } = this.#target;
    const posted = await this.#api.call('chat.postMessage', channel, (c) =>
      c.chat.postMessage({
        channel,
        ...(threadTs && { thread_ts: threadTs }),
        ...defused(content),
        unfurl_links: false,
        unfurl_media: false,
      } as Parameters<typeof c.chat.postMessage>[0]),
    );
    return String(posted.ts);
  }

  #withBlocks(blocks: readonly ContextBlock[]): Content {
    const fallback = toMrkdwn(this.#text);
    return {
      text: fallback.length > FALLBACK_CHARS ? `${fallback.slice(0, FALLBACK_CHARS - 1)}…` : fallback,
      blocks: [{ type: 'markdown', text: this.#text }, ...blocks],
    };
  }

  /** One chat.update whose call the caller has already taken from the budget. */
  async #update(content: Content, exact: boolean): Promise<PartOutcome> {
    const { channel } = this.#target;
    const { client } = this.#api;
    try {
      await client.chat.update({ channel, ts: this.#ts, ...defused(content) } as Parameters<typeof client.chat.update>[0]);
      this.#sent = this.#text.length;
      this.#exact = exact;
      return OK;
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && GONE_ERRORS.has(code)) {
        this.release();
        return { status: 'gone' };
      }
      if (code !== 'msg_too_long') throw error;
      this.release();
      const rest = this.#text.slice(this.#sent);
      this.#text = this.#text.slice(0, this.#sent);
      return { status: 'overflow', rest };
    }
  }
}
