/**
 * Reassembles 16-bit little-endian PCM from byte chunks of any length: the service splits its stream
 * without regard to sample boundaries, so a sample's two bytes may arrive in different chunks.
 */
export class Pcm16Joiner {
  #carry = -1;

  /** True while one byte of a sample is waiting for its partner. */
  get hasPartialSample(): boolean {
    return this.#carry >= 0;
  }

  /** Returns every whole sample completed by `bytes` (possibly none); an odd byte is kept for the next call. */
  push(bytes: Uint8Array): Int16Array {
    const carried = this.#carry >= 0 ? 1 : 0;
    const total = carried + bytes.length;
    const out = new Int16Array(total >> 1);
    let at = 0;
    let i = 0;
    if (carried && out.length > 0) {
      out[i++] = (((bytes[0]! << 8) | this.#carry) << 16) >> 16;
      at = 1;
    }
    for (; i < out.length; i++, at += 2) out[i] = (((bytes[at + 1]! << 8) | bytes[at]!) << 16) >> 16;
    if (total % 2 === 1) this.#carry = bytes.length > 0 ? bytes[bytes.length - 1]! : this.#carry;
    else this.#carry = -1;
    return out;
  }
}

export interface JoinPcm16Options {
  /**
   * Called once if the stream ends in the middle of a sample. That half sample (one byte, 1/48 ms of
   * audio) is dropped: it cannot be heard, and failing the whole reply over it would be worse.
   */
  onTruncatedSample?: () => void;
}

/** Turns a stream of arbitrary byte chunks into chunks of whole samples, skipping chunks that complete none. */
export async function* joinPcm16(chunks: AsyncIterable<Uint8Array>, options: JoinPcm16Options = {}): AsyncGenerator<Int16Array, void, undefined> {
  const joiner = new Pcm16Joiner();
  for await (const chunk of chunks) {
    const samples = joiner.push(chunk);
    if (samples.length > 0) yield samples;
  }
  if (joiner.hasPartialSample) options.onTruncatedSample?.();
}
