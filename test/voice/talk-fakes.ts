import type { Readable } from 'node:stream';
import type { Transcript, TranscribeInput } from '../../src/capabilities/transcribe.ts';
import type { HandleOptions, IncomingMessage, ReplyEvent } from '../../src/conversation/types.ts';
import { emptyServiceUsage } from '../../src/service/usage.ts';
import type { HeardAudio, VoiceLink, VoiceLoss } from '../../src/voice/voice-link.ts';

/** Resolves the next time `wake` is called. */
export class Signal {
  #waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}

/** A link that hears what the test says and records what it plays, packet by packet. */
export class HearingLink implements VoiceLink {
  readonly channelId: string;
  readonly packets: Buffer[] = [];
  stops = 0;
  plays = 0;
  listening = false;
  readonly #played = new Signal();
  #onAudio: ((audio: HeardAudio) => void) | undefined;
  #current: Readable | undefined;
  left = false;

  constructor(channelId = 'voice-1') {
    this.channelId = channelId;
  }

  listen(onAudio: (audio: HeardAudio) => void): () => void {
    this.#onAudio = onAudio;
    this.listening = true;
    return () => {
      this.#onAudio = undefined;
      this.listening = false;
    };
  }

  /** Sends a recording as 20 ms frames stamped from `at` on; returns when its last frame was heard. */
  speak(userId: string, pcm: Int16Array, at: number): number {
    let time = at;
    for (let offset = 0; offset + 960 <= pcm.length; offset += 960, time += 20) {
      this.#onAudio?.({ userId, pcm: pcm.slice(offset, offset + 960), at: time });
    }
    return time;
  }

  /** Like a voice connection's player, a new playback replaces the one going on. */
  async play(packets: Readable): Promise<void> {
    this.#current?.destroy();
    this.#current = packets;
    this.plays++;
    await new Promise<void>((resolve) => {
      packets.on('data', (packet: Buffer) => {
        this.packets.push(packet);
        this.#played.wake();
      });
      packets.once('close', resolve);
    });
    this.#played.wake();
  }

  /** Waits until at least `count` packets have been played in all. */
  async played(count: number): Promise<void> {
    while (this.packets.length < count) await this.#played.wait();
  }

  stopPlayback(): void {
    this.stops++;
    this.#current?.destroy();
  }

  leave(): void {
    this.left = true;
    this.#current?.destroy();
  }
  onLost(_listener: (loss: VoiceLoss) => void): void {}
  onMoved(_listener: (channelId: string) => void): void {}
}

interface PendingTranscript {
  input: TranscribeInput;
  reply(text: string): void;
  fail(error: Error): void;
}

/** Speech recognition the test answers turn by turn. */
export class FakeAsr {
  readonly calls: PendingTranscript[] = [];
  readonly #called = new Signal();
  readonly transcribe = (input: TranscribeInput): Promise<Transcript> =>
    new Promise((resolve, reject) => {
      const usage = { ...emptyServiceUsage(), audioSeconds: 2 };
      this.calls.push({ input, reply: (text) => resolve({ text, usage }), fail: reject });
      this.#called.wake();
    });
  async next(index: number): Promise<PendingTranscript> {
    while (this.calls.length <= index) await this.#called.wait();
    return this.calls[index]!;
  }
}

interface PendingAnswer {
  message: IncomingMessage;
  options: HandleOptions;
  emit(event: ReplyEvent): void;
  done(): void;
}

/** The engine's answers, written by the test piece by piece. */
export class FakeEngine {
  readonly calls: PendingAnswer[] = [];
  readonly #called = new Signal();
  readonly answer = (message: IncomingMessage, options: HandleOptions): AsyncIterable<ReplyEvent> => {
    const events: ReplyEvent[] = [];
    const more = new Signal();
    let ended = false;
    options.signal?.addEventListener('abort', () => {
      ended = true;
      more.wake();
    });
    this.calls.push({
      message,
      options,
      emit: (event) => {
        events.push(event);
        more.wake();
      },
      done: () => {
        ended = true;
        more.wake();
      },
    });
    this.#called.wake();
    return (async function* () {
      for (;;) {
        if (events.length > 0) yield events.shift()!;
        else if (ended) return;
        else await more.wait();
      }
    })();
  };
  async next(index: number): Promise<PendingAnswer> {
    while (this.calls.length <= index) await this.#called.wait();
    return this.calls[index]!;
  }
}
