/** Decoded 8-bit pixels, rows top to bottom, RGB or RGBA interleaved. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/**
 * Drops the alpha channel of an RGBA image in which every pixel is opaque. The RGB bytes are packed in place,
 * over the image's own buffer: a second copy of a large picture would double the memory it takes.
 */
export function dropOpaqueAlpha(image: RawImage): RawImage {
  if (image.channels === 3) return image;
  const { data } = image;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) return image;
  }
  for (let i = 0, o = 0; i < data.length; i += 4, o += 3) {
    data[o] = data[i]!;
    data[o + 1] = data[i + 1]!;
    data[o + 2] = data[i + 2]!;
  }
  return { ...image, data: data.subarray(0, (data.length / 4) * 3), channels: 3 };
}

/** A RawImage as it arrives from a worker thread, whose Buffer comes back as a plain Uint8Array. */
export function rawImageFrom(image: RawImage): RawImage {
  const { data } = image;
  return { ...image, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}
