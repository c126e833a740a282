import { Readable } from 'node:stream';

/**
 * A hold on packets on their way to the player: while held none pass (the player sends silence), so speech
 * yields within a packet or two and goes on where it stopped once released.
 */
export class PacketHold {
  #held = false;
  #waiters: (() => void)[] = [];

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    this.#wake();
  }

  /** `packets` passing through this hold: object mode, at most one read ahead. Destroying `packets` ends it. */
  through(packets: Readable): Readable {
    packets.once('close', () => this.#wake());
    return Readable.from(this.#pass(packets), { objectMode: true, highWaterMark: 1 });
  }

  async *#pass(packets: Readable): AsyncGenerator<Buffer> {
    try {
      for await (const packet of packets as AsyncIterable<Buffer>) {
        while (this.#held && !packets.destroyed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
        if (packets.destroyed) return;
        yield packet;
      }
    } catch (error) {
      // Cancelled speech destroys its packets under the loop.
      if (packets.destroyed && !packets.errored) return;
      throw error;
    }
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
