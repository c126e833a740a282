import { closeOpenFence, splitHead } from './markdown-split.ts';
import { MessageGoneError, type ReplySurface } from './surface.ts';

interface Part {
  handle: string;
  /** Edit mode: the whole text last shown. Append mode: how much of the raw text was sent. */
  shown: string;
}

export interface StreamingReplyOptions {
  /** Shortest gap between two updates even when the platform would allow more (ms). */
  minIntervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Shows a streamed answer on a surface: the first text goes out as soon as it arrives, later text is
 * coalesced into paced updates, and a message that outgrows the platform's limit is finished at a markdown-safe
 * point and continued in a new one; so is what a message did not take (the surface's Overflow). `finish()` leaves every message holding its complete text; `abandon()` leaves
 * them as they are. Once the surface says a message was deleted, nothing more is sent.
 */
export class StreamingReply {
  private readonly surface: ReplySurface;
  private readonly minIntervalMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly handles: string[] = [];
  private current: Part | undefined;
  private tail = '';
  private all = '';
  private dirty = false;
  private ended = false;
  private failure: unknown;
  private deletedMessage = false;
  private abandoned = false;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;
  private readonly stopping: Promise<void>;
  private stop!: () => void;
  /** Resolves when finish() is called: the last edit need not wait out Herald's own pacing. */
  private readonly finishing: Promise<void>;
  private markFinishing!: () => void;
  /** Resolves when the surface says a message of this reply was deleted. */
  readonly deleted: Promise<void>;
  private markDeleted!: () => void;

  constructor(surface: ReplySurface, options: StreamingReplyOptions = {}) {
    this.surface = surface;
    this.minIntervalMs = options.minIntervalMs ?? 0;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.stopping = new Promise((resolve) => (this.stop = resolve));
    this.finishing = new Promise((resolve) => (this.markFinishing = resolve));
    this.deleted = new Promise((resolve) => (this.markDeleted = resolve));
    this.loop = this.run();
    this.loop.catch(() => {});
  }

  /** Adds streamed text; never waits for the platform. */
  append(delta: string): void {
    if (this.ended || delta === '') return;
    this.tail += delta;
    this.all += delta;
    this.dirty = true;
    this.wake?.();
  }

  /**
   * Stops taking text, waits until every message shows its final text, returns the message handles. After a
   * deletion it only returns them (see `wasDeleted`).
   */
  async finish(): Promise<string[]> {
    this.ended = true;
    this.markFinishing();
    this.wake?.();
    await this.loop;
    if (this.failure) throw this.failure;
    return [...this.handles];
  }

  /** Stops taking text and sends nothing more (a call under way is let finish); returns the message handles. */
  async abandon(): Promise<string[]> {
    this.abandoned = true;
    this.ended = true;
    this.stop();
    this.wake?.();
    await this.loop;
    return [...this.handles];
  }

  /** Whether the surface said a message of this reply was deleted (the reply then stopped). */
  get wasDeleted(): boolean {
    return this.deletedMessage;
  }

  /** Everything appended so far, across all messages. */
  get text(): string {
    return this.all;
  }

  get messageCount(): number {
    return this.handles.length;
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        if (!this.dirty && !this.ended) await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        if (this.ended) break;
        await this.flush(false);
        await this.pause();
      }
      if (!this.abandoned) {
        const wait = this.surface.delayMs('update');
        if (wait > 0) await this.sleep(wait);
        await this.flush(true);
      }
    } catch (error) {
      if (!(error instanceof MessageGoneError)) {
        this.failure = error;
        return;
      }
      this.deletedMessage = true;
      this.ended = true;
      this.markDeleted();
    }
  }

  private async pause(): Promise<void> {
    const wait = Math.max(this.minIntervalMs, this.surface.delayMs('update'));
    if (wait > 0) await Promise.race([this.sleep(wait), this.stopping, this.finishing]);
  }

  private async flush(final: boolean): Promise<void> {
    this.dirty = false;
    const limit = this.surface.maxLength;
    while (this.tail.length > limit && !this.abandoned) {
      const sent = this.surface.mode === 'append' && this.current ? this.current.shown.length : 0;
      const before = this.tail;
      const { head, rest } = splitHead(before, limit, sent);
      await this.show(head, true);
      // Text may have arrived while the platform answered; it belongs after the rest.
      this.tail = rest + this.tail.slice(before.length);
    }
    if (this.abandoned) return;
    if (this.tail.trim() === '' && !final) return;
    if (this.tail.trim() === '' && this.current === undefined) return;
    await this.show(this.tail, final, final);
  }

  /**
   * An append-only message cannot take text back, so the last fifth of its room is held until the cut is
   * known; that leaves space for the cut to land on a line or word boundary.
   */
  private appendCeiling(): number {
    return Math.floor(this.surface.maxLength * 0.8);
  }

  /** Shows `text` as the current message's content; `done` closes it (`last`: the reply's last message). */
  private async show(text: string, done: boolean, last = false): Promise<void> {
    const append = this.surface.mode === 'append';
    if (!this.current) {
      const visible = append ? (done ? text : text.slice(0, this.appendCeiling())) : done ? text : closeOpenFence(text);
      const handle = await this.surface.open(visible);
      this.handles.push(handle);
      this.current = { handle, shown: visible };
      if (!done) return;
      if (append) await this.closeCurrent('', last);
      else if (visible !== text) await this.closeCurrent(text, last);
      this.current = undefined;
      return;
    }
    const part = this.current;
    if (append) {
      if (done) {
        await this.closeCurrent(text.slice(part.shown.length), last);
        return;
      }
      const sendable = text.slice(0, this.appendCeiling());
      if (sendable.length > part.shown.length) {
        const overflow = await this.surface.update(part.handle, sendable.slice(part.shown.length));
        if (overflow) {
          // The message is over: what it did not take, and everything after, starts the next one.
          this.current = undefined;
          this.tail = overflow.rest + this.tail.slice(sendable.length);
          this.dirty = true;
          return;
        }
        part.shown = sendable;
      }
      return;
    }
    if (done) {
      await this.closeCurrent(text, last);
      return;
    }
    const visible = closeOpenFence(text);
    if (visible === part.shown) return;
    await this.surface.update(part.handle, visible);
    part.shown = visible;
  }

  /** Closes the current message; what it did not take is shown, complete, in a new one. */
  private async closeCurrent(text: string, last: boolean): Promise<void> {
    const overflow = await this.surface.close(this.current!.handle, text, { last });
    this.current = undefined;
    if (overflow && overflow.rest !== '') await this.show(overflow.rest, true, last);
  }
}
