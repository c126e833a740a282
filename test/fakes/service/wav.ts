export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataBytes: number;
  seconds: number;
}

/** Reads a RIFF/WAVE header; null when the bytes are not a WAV file with fmt and data chunks. */
export function wavInfo(b: Buffer): WavInfo | null {
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return null;
  let at = 12;
  let format: { sampleRate: number; channels: number; bitsPerSample: number; byteRate: number } | undefined;
  while (at + 8 <= b.length) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ' && body + 16 <= b.length) {
      format = {
        channels: b.readUInt16LE(body + 2),
        sampleRate: b.readUInt32LE(body + 4),
        byteRate: b.readUInt32LE(body + 8),
        bitsPerSample: b.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && format) {
      // Streamed WAVs carry a placeholder size; what is present is what counts.
      const dataBytes = Math.min(size, b.length - body);
      if (format.byteRate === 0) return null;
      const { sampleRate, channels, bitsPerSample } = format;
      return { sampleRate, channels, bitsPerSample, dataBytes, seconds: dataBytes / format.byteRate };
    }
    at = body + size + (size % 2);
  }
  return null;
}

/** Wraps 16-bit little-endian mono PCM in a WAV file. */
export function pcm16ToWav(pcm: Buffer, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
