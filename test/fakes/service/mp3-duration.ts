const bitrates = {
  // kbit/s by [version group][layer], index 1..14
  v1: {
    1: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    3: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  },
  v2: {
    1: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    2: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    3: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  },
} as const;
const sampleRates = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as const;

interface Frame {
  bytes: number;
  samples: number;
  sampleRate: number;
  bitrate: number;
}

function frameAt(b: Buffer, at: number): Frame | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return null;
  const version = (b[at + 1]! >> 3) & 3;
  const layerBits = (b[at + 1]! >> 1) & 3;
  const bitrateIndex = b[at + 2]! >> 4;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  const padding = (b[at + 2]! >> 1) & 1;
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrate = bitrates[version === 3 ? 'v1' : 'v2'][layer][bitrateIndex - 1]! * 1000;
  const sampleRate = sampleRates[version as 0 | 2 | 3][rateIndex]!;
  if (layer === 1) return { bytes: (Math.floor((12 * bitrate) / sampleRate) + padding) * 4, samples: 384, sampleRate, bitrate };
  const samples = layer === 3 && version !== 3 ? 576 : 1152;
  return { bytes: Math.floor(((samples / 8) * bitrate) / sampleRate) + padding, samples, sampleRate, bitrate };
}

/** Duration of an MP3 file by walking its frame headers; null when no MPEG audio frame is found. */
export function mp3Seconds(b: Buffer): number | null {
  let at = 0;
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'ID3') {
    const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
    at = 10 + size + (b[5]! & 0x10 ? 10 : 0);
  }
  // A frame sync is trusted only when another frame (or the end of the file) follows it.
  const trusted = (pos: number): Frame | null => {
    const frame = frameAt(b, pos);
    if (!frame) return null;
    return pos + frame.bytes >= b.length || frameAt(b, pos + frame.bytes) ? frame : null;
  };
  while (at < b.length && !trusted(at)) at += 1;
  const first = trusted(at);
  if (!first) return null;
  let seconds = 0;
  let frame: Frame | null = first;
  while (frame) {
    seconds += frame.samples / frame.sampleRate;
    at += frame.bytes;
    frame = frameAt(b, at);
  }
  // Trailing bytes that are not frames (a broken tail): estimate them from the bitrate.
  const rest = b.length - at;
  if (rest > 128) seconds += (rest * 8) / first.bitrate;
  return seconds;
}
