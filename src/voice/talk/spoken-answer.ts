import { Readable } from 'node:stream';
import type { OpusFrameStreamOptions } from '../../media/speech/opus-frame-stream.ts';
import { startLiveSpeech, type LiveSpeech } from '../live-speech.ts';
import { PacketHold } from '../packet-hold.ts';

/** Opens the streamed speech (pcm16, 24 kHz mono) of one sentence. */
export type SentenceSpeech = (text: string, signal: AbortSignal) => AsyncIterable<Uint8Array>;

/**
 * An answer spoken sentence by sentence while it is still being written: each sentence is synthesized as it
 * arrives (at most one ahead of the one playing) and played in order, as one stream of Opus packets. It can be
 * paused within a packet or two (someone speaks over it), resumed, or stopped.
 */
export class SpokenAnswer {
  readonly #speech: SentenceSpeech;
  readonly #opus: OpusFrameStreamOptions;
  readonly #sentences: { text: string; live?: LiveSpeech }[] = [];
  #playing = -1;
  #ended = false;
  #stopped = false;
  readonly #hold = new PacketHold();
  #paused = false;
  readonly #source: Readable;
  #wake: (() => void) | undefined;
  #synthesized = 0;
  /** The Opus packets to play: 20 ms each, object mode, at most one read ahead. */
  readonly packets: Readable;

  constructor(speech: SentenceSpeech, opus: OpusFrameStreamOptions = {}) {
    this.#speech = speech;
    this.#opus = opus;
    this.#source = Readable.from(this.#play(), { objectMode: true, highWaterMark: 1 });
    this.packets = this.#hold.through(this.#source);
  }

  /** Sentences whose speech was requested. */
  get synthesized(): number {
    return this.#synthesized;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Adds the next sentence to say. */
  add(text: string): void {
    if (this.#ended || this.#stopped) return;
    this.#sentences.push({ text });
    this.#startAhead();
    this.#notify();
  }

  /** No more sentences: the packets end after the last. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  pause(): void {
    this.#paused = true;
    this.#hold.hold();
  }

  resume(): void {
    this.#paused = false;
    this.#hold.release();
  }

  /** Stops at once: synthesis is cancelled and the packets end. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const sentence of this.#sentences) sentence.live?.cancel();
    this.#notify();
    this.#source.destroy();
  }

  async *#play(): AsyncGenerator<Buffer> {
    for (let index = 0; ; index++) {
      while (!this.#stopped && index >= this.#sentences.length && !this.#ended) await this.#wait();
      if (this.#stopped || index >= this.#sentences.length) return;
      this.#playing = index;
      this.#startAhead();
      try {
        for await (const packet of this.#sentences[index]!.live!.packets as AsyncIterable<Buffer>) {
          if (this.#stopped) return;
          yield packet;
        }
      } catch (error) {
        // Stopping destroys the sentence's packet stream under the loop.
        if (this.#stopped) return;
        throw error;
      }
    }
  }

  /** Starts synthesizing the sentence playing and the one after it. */
  #startAhead(): void {
    for (let index = Math.max(0, this.#playing); index <= this.#playing + 1 && index < this.#sentences.length; index++) {
      const sentence = this.#sentences[index]!;
      if (sentence.live) continue;
      sentence.live = startLiveSpeech((signal) => this.#speech(sentence.text, signal), this.#opus);
      this.#synthesized++;
    }
  }

  #wait(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
