import type { Schedule } from '../../src/schedules/schedule.ts';
import type { PostOptions, RunAccess, ScheduledPost, ScheduleDelivery } from '../../src/schedules/schedule-delivery.ts';
import { collectReply, type CollectedReply } from '../helpers/collect-reply.ts';

export interface DeliveredPost {
  scheduleId: string;
  idempotencyKey: string;
  /** A reminder's text, or the reply's text. */
  text: string;
  reply?: CollectedReply;
}

/**
 * A platform's delivery as the scheduler sees it: every post and note recorded, with events to await them. Posts
 * with an idempotency key already seen are dropped when `idempotentPosts`, as a platform honouring the key would.
 */
export class FakeDelivery implements ScheduleDelivery {
  readonly platform: string;
  readonly idempotentPosts: boolean;
  readonly posts: DeliveredPost[] = [];
  readonly notes: Array<{ scheduleId: string; userId: string; text: string }> = [];
  /** Every key a post was attempted with, duplicates included. */
  readonly attempts: string[] = [];
  /** What mayRun answers; allowed by default. A promise that never settles holds the check until the run's signal aborts. */
  access: (schedule: Schedule) => RunAccess | Promise<RunAccess> = () => ({ allowed: true });
  #held: Promise<void> | undefined;
  /** Runs once, after the next post is made and before the scheduler hears of it (an instance dying right after posting). */
  afterNextPost: (() => Promise<void>) | undefined;
  #waiters: Array<{ count: () => number; target: number; resolve: () => void }> = [];
  #started: Array<() => void> = [];

  constructor(platform = 'test', options: { idempotentPosts?: boolean } = {}) {
    this.platform = platform;
    this.idempotentPosts = options.idempotentPosts ?? true;
  }

  async mayRun(schedule: Schedule, signal: AbortSignal): Promise<RunAccess> {
    signal.throwIfAborted();
    return Promise.race([
      this.access(schedule),
      new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
  }

  async post(schedule: Schedule, post: ScheduledPost, options: PostOptions): Promise<void> {
    this.attempts.push(options.idempotencyKey);
    for (const resolve of this.#started.splice(0)) resolve();
    const held = this.#held;
    this.#held = undefined;
    if (held) {
      await Promise.race([
        held,
        new Promise<never>((_resolve, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason), { once: true })),
      ]);
    }
    const reply = post.type === 'reply' ? await collectReply(post.stream) : undefined;
    if (this.idempotentPosts && this.posts.some((p) => p.idempotencyKey === options.idempotencyKey)) return;
    this.posts.push({
      scheduleId: schedule.id,
      idempotencyKey: options.idempotencyKey,
      text: post.type === 'reminder' ? post.text : (reply?.text ?? ''),
      ...(reply && { reply }),
    });
    this.#check();
    const after = this.afterNextPost;
    this.afterNextPost = undefined;
    await after?.();
  }

  async notify(schedule: Schedule, text: string): Promise<void> {
    this.notes.push({ scheduleId: schedule.id, userId: schedule.creator.id, text });
    this.#check();
  }

  /**
   * Holds the next post once begun, until the function returned is called or the post's signal aborts (a run cut
   * off mid-post, when never called).
   */
  holdNextPost(): () => void {
    let release!: () => void;
    this.#held = new Promise((resolve) => (release = resolve));
    return release;
  }

  /** Resolves once a post has begun. */
  postStarted(): Promise<void> {
    return new Promise((resolve) => this.#started.push(resolve));
  }

  /** Resolves once `count` posts in all were made. */
  posted(count: number): Promise<void> {
    return this.#until(() => this.posts.length, count);
  }

  /** Resolves once `count` notes in all were sent. */
  noted(count: number): Promise<void> {
    return this.#until(() => this.notes.length, count);
  }

  #until(count: () => number, target: number): Promise<void> {
    if (count() >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, target, resolve }));
  }

  #check(): void {
    this.#waiters = this.#waiters.filter((w) => {
      if (w.count() < w.target) return true;
      w.resolve();
      return false;
    });
  }
}
