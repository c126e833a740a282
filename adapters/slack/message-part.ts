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
 * Controls (the Stop button) show under the text while the message grows; its final edit takes them away.
 */
import { closeOpenFence, splitHead } from '../../src/streaming/markdown-split.ts';
import type { AnswerBlock } from './answer-controls.ts';
import { defuseMentions } from './defuse-mentions.ts';
import { toMrkdwn } from './mrkdwn.ts';
import { GONE_ERRORS, OK, type PartOutcome, type ReplyPart, type ReplyTarget } from './reply-part.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

/** Notification text (the `text` beside blocks) needs no more than a preview. */
const FALLBACK_CHARS = 3000;
/** chat.update calls a progress edit leaves free, so that new replies can still be shown as they grow. */
export const PROGRESS_EDIT_KEEP = 3;

type MarkdownBlock = { type: 'markdown'; text: string };
type Content = { markdown_text: string } | { text: string; blocks: [MarkdownBlock, ...AnswerBlock[]] };

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
  /** Shown under the text while the message grows. */
  readonly #controls: readonly AnswerBlock[];
  #controlsShown = false;

  private constructor(api: SlackApi, target: ReplyTarget, text: string, controls: readonly AnswerBlock[]) {
    this.#api = api;
    this.#target = target;
    this.#text = text;
    this.#controls = controls;
  }

  /**
   * Posts `text` (with `controls` under it) at once when its final edit can be promised, else holds it to be posted
   * whole, without controls, at the end.
   */
  static async open(api: SlackApi, target: ReplyTarget, text: string, controls: readonly AnswerBlock[] = []): Promise<MessagePart> {
    const part = new MessagePart(api, target, text, controls);
    await part.#goLive();
    return part;
  }

  /** Whether the message shows controls that its final edit must take away. */
  get showsControls(): boolean {
    return this.#controlsShown;
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
    return this.#update(this.#growing(shown), shown === this.#text);
  }

  async finish(delta: string, blocks: readonly AnswerBlock[]): Promise<PartOutcome> {
    this.#text += delta;
    try {
      if (this.held) return await this.#postWhole(blocks);
      if (blocks.length === 0 && !this.#controlsShown && this.#exact && this.#sent === this.#text.length) return OK;
      if (this.#reserved) {
        this.#reserved = false;
        await this.#api.budget.takeReserved('chat.update');
      } else {
        await this.#api.budget.take('chat.update');
      }
      const content = blocks.length === 0 && !this.#controlsShown ? { markdown_text: this.#text } : this.#withBlocks(this.#text, blocks);
      const outcome = await this.#update(content, true);
      if (outcome.status === 'ok') this.#controlsShown = false;
      return outcome;
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
    await this.#api.budget.ready(['chat.update']);
    if (!this.#api.budget.reserve('chat.update')) return;
    this.#reserved = true;
    const shown = closeOpenFence(this.#text);
    try {
      this.#ts = await this.#post(this.#growing(shown));
    } catch (error) {
      this.release();
      throw error;
    }
    this.#controlsShown = this.#controls.length > 0;
    this.#sent = this.#text.length;
    this.#exact = shown === this.#text;
  }

  /** What a growing message shows: its text so far, with the controls under it. */
  #growing(shown: string): Content {
    return this.#controls.length === 0 ? { markdown_text: shown } : this.#withBlocks(shown, this.#controls);
  }

  /** Posts the held text in one message, or as much as Slack takes when it finds the text too long. */
  async #postWhole(blocks: readonly AnswerBlock[]): Promise<PartOutcome> {
    try {
      this.#ts = await this.#post(blocks.length === 0 ? { markdown_text: this.#text } : this.#withBlocks(this.#text, blocks));
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

  #withBlocks(text: string, blocks: readonly AnswerBlock[]): Content {
    const fallback = toMrkdwn(text);
    return {
      text: fallback.length > FALLBACK_CHARS ? `${fallback.slice(0, FALLBACK_CHARS - 1)}…` : fallback,
      blocks: [{ type: 'markdown', text }, ...blocks],
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
