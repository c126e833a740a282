import sharp from 'sharp';
import { pcm16ToWav } from './wav.ts';

export async function imageBytes(
  format: 'png' | 'jpeg' | 'gif' | 'webp',
  width: number,
  height: number,
  options: { lossless?: boolean; alpha?: boolean } = {},
): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: options.alpha ? 4 : 3, background: { r: 200, g: 30, b: 90, alpha: 0.5 } } });
  if (format === 'webp') return image.webp({ lossless: options.lossless }).toBuffer();
  return image.toFormat(format).toBuffer();
}

/** A 24-bit BMP with a BITMAPINFOHEADER; negative height for top-down. */
export function bmpBytes(width: number, height: number): Buffer {
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const pixels = rowBytes * Math.abs(height);
  const b = Buffer.alloc(54 + pixels);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  return b;
}

export function dataUrl(mime: string, bytes: Buffer): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

/** A WAV of `seconds` of a 440 Hz tone. */
export function wavBytes(seconds: number, sampleRate = 16000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i += 1) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2);
  return pcm16ToWav(pcm, sampleRate);
}

/** MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz, empty payload) after an ID3v2 tag: 1152 samples each. */
export function mp3Bytes(frames: number): Buffer {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 20, ...new Array(20).fill(0)]);
  const frameLength = Math.floor((144 * 128000) / 44100);
  const frame = Buffer.alloc(frameLength);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat([id3, ...new Array(frames).fill(frame)]);
}
