import type { SpeechInput } from '../capabilities/synthesize.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import type { OpusFrameStreamOptions } from '../media/speech/opus-frame-stream.ts';
import { startLiveSpeech, warmUpLiveSpeech, type LiveSpeech } from './live-speech.ts';
import { skippedNotice } from './narration-text.ts';
import { PacketHold } from './packet-hold.ts';
import type { SpeechOutcome, SpeechRequest } from './voice-control.ts';
import { VoiceError } from './voice-error.ts';
import type { VoiceJoiner, VoiceLink, VoiceLoss } from './voice-link.ts';

export interface QueuedSpeech {
  /** Narrated messages share a bounded backlog; requested speech waits its turn. */
  kind: 'say' | 'narration';
  /** The voice channel to speak in. */
  channelId: string;
  request: SpeechRequest;
}

export interface SpeechQueueOptions {
  join: VoiceJoiner;
  /** Streamed pcm16 speech, 24 kHz mono. */
  synthesize(input: SpeechInput): AsyncIterable<Uint8Array>;
  logger: Logger;
  /** Leave the channel after this long with nothing to say. */
  idleTimeoutMs: number;
  /** Requested speeches that may wait at once. */
  maxQueued: number;
  /** Narrated messages that may wait at once; beyond it the oldest is dropped. */
  maxNarrationBacklog: number;
  /** While true the bot stays in its channel when idle (narration is running). */
  keepConnected?(): boolean;
  /** Told when the voice connection is gone for good (after the link's own rejoin attempts, or the bot was removed). */
  onLost?(loss: VoiceLoss): void;
  /** Told when someone moved the bot to another voice channel; the queue plays on there. */
  onMoved?(channelId: string): void;
  /** Each speech waits for this before it plays (a conversation in the channel pausing); undefined: no need to wait. */
  untilPause?(): Promise<void> | undefined;
  opus?: OpusFrameStreamOptions;
}

interface Entry extends QueuedSpeech {
  settle(outcome: SpeechOutcome): void;
  finished: Promise<SpeechOutcome>;
  ending?: 'skipped' | 'stopped';
  live?: LiveSpeech;
}

/**
 * One guild's speech: plays queued speeches one at a time in one voice channel, joining (or moving)
 * as needed, and leaves after an idle timeout. Guilds have separate queues, so one never waits for another.
 * When someone moves the bot the queue follows it; when someone removes it, nothing waiting is played.
 */
export class SpeechQueue {
  readonly #options: SpeechQueueOptions;
  readonly #waiting: Entry[] = [];
  readonly #hold = new PacketHold();
  #current: Entry | undefined;
  #link: VoiceLink | undefined;
  #joining: { channelId: string; link: Promise<VoiceLink> } | undefined;
  #linkLost: string | undefined;
  #running = false;
  #idleTimer: NodeJS.Timeout | undefined;
  #droppedNarration = 0;

  constructor(options: SpeechQueueOptions) {
    this.#options = options;
  }

  /** The voice channel the bot is in or about to join, if any. */
  get channelId(): string | undefined {
    return this.#current?.channelId ?? this.#waiting[0]?.channelId ?? this.#link?.channelId;
  }

  /** Speaking now or with speech waiting. */
  get busy(): boolean {
    return this.#current !== undefined || this.#waiting.length > 0;
  }

  get connected(): boolean {
    return this.#link !== undefined;
  }

  /** Settles when the speech playing now (if any) has ended. */
  currentEnded(): Promise<unknown> | undefined {
    return this.#current?.finished;
  }

  /** Adds a speech; `ahead` counts the speeches before it. Throws VoiceError when the queue is full. */
  enqueue(speech: QueuedSpeech): { ahead: number; finished: Promise<SpeechOutcome> } {
    if (speech.kind === 'say' && this.#waiting.filter((entry) => entry.kind === 'say').length >= this.#options.maxQueued) {
      throw new VoiceError(`${this.#options.maxQueued} speeches are already waiting; try again when they have played, or use /stop.`, {
        code: 'queue_full',
      });
    }
    if (speech.kind === 'narration') this.#trimNarrationBacklog();
    let settle!: (outcome: SpeechOutcome) => void;
    const finished = new Promise<SpeechOutcome>((resolve) => (settle = resolve));
    const ahead = this.#waiting.length + (this.#current ? 1 : 0);
    this.#waiting.push({ ...speech, settle, finished });
    this.#clearIdle();
    if (!this.#running) void this.#run();
    return { ahead, finished };
  }

  /** Holds the speech playing, and any starting, within a packet or two: someone speaks over it. */
  hold(): void {
    this.#hold.hold();
  }

  /** Speech held goes on where it stopped. */
  release(): void {
    this.#hold.release();
  }

  /** Ends the current speech; the next one starts. */
  skip(): boolean {
    const current = this.#current;
    if (!current || current.ending) return false;
    this.#end(current, 'skipped');
    return true;
  }

  /** Ends the current speech and removes every waiting one; returns how many were affected. */
  stop(): number {
    const removed = this.#clearWaiting({ status: 'stopped' });
    const current = this.#current;
    if (current && !current.ending) {
      this.#end(current, 'stopped');
      return removed + 1;
    }
    return removed;
  }

  /** Stops everything and leaves the voice channel now. */
  leave(): void {
    this.stop();
    this.#clearIdle();
    this.#joining = undefined;
    this.#link?.leave();
    this.#link = undefined;
  }

  /** Joins a channel ahead of any speech (narration or a talk starting); throws VoiceError when that fails. */
  async prepare(channelId: string): Promise<VoiceLink> {
    this.#clearIdle();
    const link = await this.#linkTo(channelId);
    if (!this.#running) this.#scheduleIdle();
    return link;
  }

  /** Removes narrated messages that have not started playing. */
  clearNarration(): void {
    for (const entry of this.#waiting.filter((waiting) => waiting.kind === 'narration')) {
      this.#waiting.splice(this.#waiting.indexOf(entry), 1);
      entry.settle({ status: 'stopped' });
    }
    this.#droppedNarration = 0;
  }

  /** Starts the idle countdown if nothing is playing, e.g. once narration has ended. */
  idle(): void {
    if (!this.#running && !this.busy) this.#scheduleIdle();
  }

  #clearWaiting(outcome: SpeechOutcome): number {
    const removed = this.#waiting.splice(0);
    for (const entry of removed) entry.settle(outcome);
    this.#droppedNarration = 0;
    return removed.length;
  }

  #trimNarrationBacklog(): void {
    const narrated = this.#waiting.filter((entry) => entry.kind === 'narration');
    for (const entry of narrated.slice(0, Math.max(0, narrated.length - this.#options.maxNarrationBacklog + 1))) {
      this.#waiting.splice(this.#waiting.indexOf(entry), 1);
      entry.settle({ status: 'dropped' });
      this.#droppedNarration++;
    }
  }

  #end(entry: Entry, ending: 'skipped' | 'stopped'): void {
    entry.ending = ending;
    entry.live?.cancel();
    if (entry.live) this.#link?.stopPlayback();
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        const pause = this.#options.untilPause?.();
        if (pause !== undefined) await pause;
        const entry = this.#waiting.shift();
        if (!entry) break;
        this.#current = entry;
        entry.settle(await this.#play(entry));
        this.#current = undefined;
      }
    } finally {
      this.#current = undefined;
      this.#running = false;
    }
    this.#scheduleIdle();
  }

  async #play(entry: Entry): Promise<SpeechOutcome> {
    let link: VoiceLink;
    this.#linkLost = undefined;
    try {
      [link] = await Promise.all([this.#linkTo(entry.channelId), warmUpLiveSpeech(this.#options.opus)]);
    } catch (error) {
      if (entry.ending) return { status: entry.ending };
      if (error instanceof VoiceError) return { status: 'failed', message: error.message };
      this.#options.logger.warn({ err: error }, 'voice: joining failed');
      return { status: 'failed', message: 'I could not connect to the voice channel. Please try again.' };
    }
    if (entry.ending) return { status: entry.ending };
    const request = this.#spokenRequest(entry);
    const live = startLiveSpeech((signal) => this.#options.synthesize({ ...request, signal }), this.#options.opus);
    entry.live = live;
    await link.play(this.#hold.through(live.packets));
    live.cancel();
    const synthesis = await live.synthesis;
    if (entry.ending) return { status: entry.ending };
    if (this.#linkLost !== undefined) {
      return { status: 'failed', message: this.#linkLost };
    }
    if (synthesis.status === 'failed') {
      this.#options.logger.warn({ err: synthesis.error }, 'voice: speech synthesis failed');
      const report = describeError(synthesis.error);
      const reason = report.kind === 'internal' ? '' : ` ${report.message}`;
      return {
        status: 'failed',
        message: (synthesis.received > 0 ? 'Speech synthesis failed partway, so I stopped speaking.' : 'Speech synthesis failed.') + reason,
      };
    }
    return { status: 'played' };
  }

  #spokenRequest(entry: Entry): SpeechRequest {
    if (entry.kind !== 'narration' || this.#droppedNarration === 0) return entry.request;
    const text = `${skippedNotice(this.#droppedNarration)} ${entry.request.text}`;
    this.#droppedNarration = 0;
    return { ...entry.request, text };
  }

  async #linkTo(channelId: string): Promise<VoiceLink> {
    if (this.#link?.channelId === channelId) return this.#link;
    if (this.#joining?.channelId === channelId) return this.#joining.link;
    this.#link?.leave();
    this.#link = undefined;
    const joining = { channelId, link: this.#options.join(channelId) };
    this.#joining = joining;
    try {
      const link = await joining.link;
      if (this.#joining !== joining) {
        link.leave(); // left or moved elsewhere while joining
        throw new VoiceError('The voice channel changed while I was joining it.', { code: 'connect_failed' });
      }
      this.#link = link;
      link.onLost((loss) => this.#onLost(link, loss));
      link.onMoved((movedTo) => this.#onMoved(link, movedTo));
      if (link.channelId !== channelId) this.#onMoved(link, link.channelId); // moved while joining
      return link;
    } finally {
      if (this.#joining === joining) this.#joining = undefined;
    }
  }

  #onLost(link: VoiceLink, loss: VoiceLoss): void {
    if (this.#link !== link) return;
    this.#link = undefined;
    this.#linkLost = loss.reason;
    this.#options.logger.warn({ reason: loss.reason, removed: loss.removed, channelId: link.channelId }, 'voice: connection lost');
    // Playing what waits would join the channel again: after a removal, that pulls the bot back in.
    if (loss.removed) this.#clearWaiting({ status: 'failed', message: loss.reason });
    this.#options.onLost?.(loss);
  }

  #onMoved(link: VoiceLink, channelId: string): void {
    if (this.#link !== link) return;
    for (const entry of [this.#current, ...this.#waiting]) if (entry) entry.channelId = channelId;
    this.#options.logger.info({ channelId }, 'voice: moved to another channel; the queue follows');
    this.#options.onMoved?.(channelId);
  }

  #scheduleIdle(): void {
    this.#clearIdle();
    if (!this.#link || this.#options.keepConnected?.()) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.busy || this.#options.keepConnected?.()) return;
      this.#link?.leave();
      this.#link = undefined;
    }, this.#options.idleTimeoutMs);
    this.#idleTimer.unref();
  }

  #clearIdle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}
