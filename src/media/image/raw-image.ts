/** Decoded 8-bit pixels, rows top to bottom, RGB or RGBA interleaved. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Drops the alpha channel of an RGBA image in which every pixel is opaque. */
export function dropOpaqueAlpha(image: RawImage): RawImage {
  if (image.channels === 3) return image;
  const { data } = image;
  for (let i = 3; i < data.length; i += 4) {
    if (data[i] !== 255) return image;
  }
  const rgb = Buffer.alloc((data.length / 4) * 3);
  for (let i = 0, o = 0; i < data.length; i += 4, o += 3) {
    rgb[o] = data[i];
    rgb[o + 1] = data[i + 1];
    rgb[o + 2] = data[i + 2];
  }
  return { ...image, data: rgb, channels: 3 };
}
