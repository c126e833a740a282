import type { Readable } from 'node:stream';
import type { SpeechInput } from '../../src/capabilities/synthesize.ts';
import type { VoiceLink, VoiceLoss } from '../../src/voice/voice-link.ts';

/** A voice link that reads packets as fast as they come and records them; the test can cut or move it. */
export class FakeLink implements VoiceLink {
  channelId: string;
  readonly played: Buffer[][] = [];
  left = false;
  #lost: ((loss: VoiceLoss) => void)[] = [];
  #moved: ((channelId: string) => void)[] = [];
  #stop: (() => void) | undefined;

  constructor(channelId: string) {
    this.channelId = channelId;
  }

  async play(packets: Readable): Promise<void> {
    const got: Buffer[] = [];
    this.played.push(got);
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#stop = undefined;
        resolve();
      };
      this.#stop = () => {
        packets.destroy();
        done();
      };
      packets.on('data', (packet: Buffer) => got.push(packet));
      packets.once('end', done);
      packets.once('error', done);
      packets.once('close', done);
    });
  }

  stopPlayback(): void {
    this.#stop?.();
  }

  leave(): void {
    this.left = true;
    this.#stop?.();
  }

  onLost(listener: (loss: VoiceLoss) => void): void {
    this.#lost.push(listener);
  }

  onMoved(listener: (channelId: string) => void): void {
    this.#moved.push(listener);
  }

  /** The connection is gone for good (`removed`: someone disconnected the bot): listeners hear it, playback ends. */
  lose(reason: string, removed = false): void {
    for (const listener of this.#lost) listener({ reason, removed });
    this.#stop?.();
  }

  /** Someone moved the bot to another channel; playback goes on. */
  move(channelId: string): void {
    this.channelId = channelId;
    for (const listener of this.#moved) listener(channelId);
  }
}

/** Joins that hand out FakeLinks and remember them. */
export function fakeJoiner(): { join(channelId: string): Promise<FakeLink>; links: FakeLink[] } {
  const links: FakeLink[] = [];
  return {
    links,
    async join(channelId) {
      const link = new FakeLink(channelId);
      links.push(link);
      return link;
    },
  };
}

/** A synthesizer the test drives: each request gets a controllable pcm16 stream. */
export class FakeSynth {
  readonly requests: { input: SpeechInput; push(chunk: Buffer): void; end(): void; fail(error: Error): void; aborted(): boolean }[] = [];
  #waiters: (() => void)[] = [];

  readonly synthesize = (input: SpeechInput): AsyncIterable<Uint8Array> => {
    const queue: (Buffer | Error | null)[] = [];
    let wake: (() => void) | undefined;
    const put = (item: Buffer | Error | null) => {
      queue.push(item);
      wake?.();
    };
    input.signal?.addEventListener('abort', () => put(new Error('aborted')));
    this.requests.push({
      input,
      push: (chunk) => put(chunk),
      end: () => put(null),
      fail: (error) => put(error),
      aborted: () => input.signal?.aborted ?? false,
    });
    for (const waiter of this.#waiters.splice(0)) waiter();
    return (async function* () {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    })();
  };

  /** Resolves once `count` requests have been made. */
  async waitForRequests(count: number): Promise<void> {
    while (this.requests.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

/** `seconds` of a 440 Hz tone as pcm16 24 kHz mono. */
export function tone(seconds: number, frequency = 440): Buffer {
  const samples = Math.round(seconds * 24_000);
  const bytes = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) bytes.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / 24_000)), i * 2);
  return bytes;
}
