/**
 * Rounds a sample in 16-bit units (±32768 full scale) to s16 (half up, like Math.round, which is
 * five times slower in this loop), clipping what filters overshoot.
 */
export function toInt16(value: number): number {
  return value >= 32767 ? 32767 : value <= -32768 ? -32768 : Math.floor(value + 0.5);
}

/** Averages planar channels into one. */
export function downmixToMono(channels: readonly Float32Array[]): Float32Array {
  if (channels.length === 1) return channels[0]!;
  const length = Math.min(...channels.map((c) => c.length));
  const mono = new Float32Array(length);
  for (const channel of channels) {
    for (let i = 0; i < length; i++) mono[i] += channel[i]! / channels.length;
  }
  return mono;
}

/** s16le bytes of `samples × scale`, zero-padded to `length` samples. */
export function toPcm16Bytes(samples: Float32Array, scale: number, length = samples.length): Buffer {
  const bytes = Buffer.alloc(length * 2);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, toInt16(samples[i]! * scale), true);
  return bytes;
}
