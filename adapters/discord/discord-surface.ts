import {
  DiscordAPIError,
  MessageFlags,
  RESTJSONErrorCodes,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIEmbed,
  type AttachmentPayload,
} from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { MessageGoneError, type ReplySurface } from '../../src/streaming/surface.ts';
import { withoutLinkPreviews } from './link-previews.ts';
import type { RouteRateLimits } from './route-rate-limits.ts';

export type ActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

export interface MessageBody {
  content?: string;
  embeds?: APIEmbed[];
  components?: ActionRow[];
  files?: AttachmentPayload[];
  flags?: MessageFlags.SuppressEmbeds | MessageFlags.IsVoiceMessage;
}

export interface EditBody {
  content?: string;
  embeds?: APIEmbed[];
  /** An empty list takes the message's buttons off. */
  components?: ActionRow[];
  /** An empty list clears SUPPRESS_EMBEDS. */
  flags?: MessageFlags.SuppressEmbeds | [];
}

export interface SurfacePacing {
  rateLimits: RouteRateLimits;
  /** Bucket keys (routeKey) of creating and editing messages where this reply goes. */
  createKey: string;
  editKey: string;
}

export const MESSAGE_LIMIT = 2000;
// Before Discord has answered an edit here the first one goes at once; its headers then pace the rest.
const UNKNOWN_EDIT_SPACING_MS = 0;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A reply on Discord, streamed by editing messages of at most 2000 characters and paced by the rate-limit
 * headers of the place it is posted in. Subclasses say how a message is sent and edited there (a channel, or an
 * interaction's webhook). Links are written so Discord shows no preview cards for them; every message
 * allows no mentions.
 */
export abstract class DiscordSurface implements ReplySurface {
  readonly mode = 'edit' as const;
  readonly maxLength = MESSAGE_LIMIT;
  /** Largest upload a message here may carry. */
  abstract readonly uploadLimitBytes: number;
  protected readonly logger: Logger;
  readonly #pacing: SurfacePacing;
  readonly #release: () => void;
  /** Messages whose text was too long to wrap its links, so they carry SUPPRESS_EMBEDS instead. */
  readonly #suppressed = new Set<string>();
  /** The text each message shows, as Discord last accepted it. */
  readonly #shown = new Map<string, string>();
  #failedEdits = 0;
  /** Buttons on the message being streamed, taken off when it is finished. */
  streamingButtons: ActionRow[] = [];

  constructor(pacing: SurfacePacing, logger: Logger) {
    this.#pacing = pacing;
    this.logger = logger;
    this.#release = pacing.rateLimits.share(pacing.editKey);
  }

  protected abstract send(body: MessageBody): Promise<string>;
  protected abstract edit(handle: string, body: EditBody): Promise<void>;

  /** Edits of the streamed text that failed (a later edit carried the text again). */
  get failedEdits(): number {
    return this.#failedEdits;
  }

  async open(text: string): Promise<string> {
    const body: MessageBody = textBody(text);
    if (this.streamingButtons.length > 0) body.components = this.streamingButtons;
    const handle = await this.send(body).catch((error: unknown) => {
      throw goneOr(error);
    });
    if (body.flags) this.#suppressed.add(handle);
    this.#shown.set(handle, text);
    return handle;
  }

  async update(handle: string, text: string): Promise<void> {
    try {
      await this.#editText(handle, text);
    } catch (error) {
      if (error instanceof MessageGoneError) throw error;
      this.#failedEdits++;
      this.logger.warn({ err: error }, 'editing a streamed reply failed; the next edit carries the whole text again');
    }
  }

  /**
   * The final edit, left out when the message already shows `text` and keeps its buttons; a failure here is the
   * caller's to report. The streaming buttons leave every message but the last, whose buttons the answer's end
   * replaces in one more edit.
   */
  async close(handle: string, text: string, options?: { last?: boolean }): Promise<void> {
    const clear = this.streamingButtons.length > 0 && !options?.last;
    if (!clear && this.#shown.get(handle) === text) return;
    await this.#editText(handle, text, clear ? { components: [] } : {});
  }

  delayMs(kind: 'open' | 'update'): number {
    const { rateLimits, createKey, editKey } = this.#pacing;
    return kind === 'open' ? rateLimits.delayMs(createKey, 0) : rateLimits.delayMs(editKey, UNKNOWN_EDIT_SPACING_MS);
  }

  /** Posts a message after the streamed ones (files, notes, errors); returns its id. */
  post(body: MessageBody): Promise<string> {
    return this.send(body);
  }

  /**
   * Shows embeds under a message of this reply; false when that message hides embeds (SUPPRESS_EMBEDS). Throws
   * MessageGoneError when the message was deleted.
   */
  async addEmbeds(handle: string, embeds: APIEmbed[]): Promise<boolean> {
    if (this.#suppressed.has(handle)) return false;
    const wait = this.delayMs('update');
    if (wait > 0) await sleep(wait);
    await this.edit(handle, { embeds }).catch((error: unknown) => {
      throw goneOr(error, handle);
    });
    return true;
  }

  /** Stops counting this reply among the users of its edit bucket. */
  dispose(): void {
    this.#release();
  }

  async #editText(handle: string, text: string, extra: EditBody = {}): Promise<void> {
    const body: EditBody = { ...textBody(text), ...extra };
    const suppress = body.flags !== undefined;
    const was = this.#suppressed.has(handle);
    if (suppress === was) delete body.flags;
    else if (!suppress) body.flags = [];
    await this.edit(handle, body).catch((error: unknown) => {
      throw goneOr(error, handle);
    });
    if (suppress) this.#suppressed.add(handle);
    else this.#suppressed.delete(handle);
    this.#shown.set(handle, text);
  }
}

/**
 * Discord's Unknown Message (10008): the message was deleted — the one edited, or the one an interaction's response
 * fills. Other errors pass unchanged.
 */
function goneOr(error: unknown, handle?: string): unknown {
  return isUnknownMessage(error) ? new MessageGoneError(handle, { cause: error }) : error;
}

export function isUnknownMessage(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage;
}

/**
 * Link previews off by wrapping links; when that no longer fits the limit, by the SUPPRESS_EMBEDS flag.
 * Trailing whitespace goes, as Discord drops it anyway.
 */
export function textBody(text: string): { content: string; flags?: MessageFlags.SuppressEmbeds } {
  const content = text.trimEnd();
  const wrapped = withoutLinkPreviews(content);
  return wrapped.length <= MESSAGE_LIMIT ? { content: wrapped } : { content, flags: MessageFlags.SuppressEmbeds };
}
