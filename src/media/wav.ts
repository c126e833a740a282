import { MediaError } from '../errors.ts';
import { MAX_DECODED_CHANNELS, MAX_SAMPLE_RATE, tooManyChannels, unlikelyRate } from './audio/audio-limits.ts';

/** Planar audio: one Float32Array per channel, samples in -1..1. */
export interface PcmAudio {
  sampleRate: number;
  channels: Float32Array[];
}

type SampleKind = 'int' | 'float';

interface WavLayout {
  kind: SampleKind;
  bytesPerSample: number;
  channelCount: number;
  sampleRate: number;
  blockAlign: number;
  dataOffset: number;
  frames: number;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_IEEE_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const STREAMED_SIZE = 0xffffffff;
// WAV is little-endian; on such hosts samples can be copied as they are.
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function fourCC(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

function looksLikeChunkId(bytes: Uint8Array, at: number): boolean {
  if (at + 8 > bytes.length) return false;
  for (let i = at; i < at + 4; i++) {
    const c = bytes[i]!;
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

function corrupt(detail: string): MediaError {
  return new MediaError(`This WAV file is damaged or incomplete (${detail}).`, { code: 'corrupt' });
}

function parseLayout(bytes: Uint8Array): WavLayout {
  if (bytes.length === 0) throw new MediaError('The audio file is empty.', { code: 'empty' });
  if (bytes.length < 12) throw corrupt('too short for a WAV header');
  const riff = fourCC(bytes, 0);
  if ((riff !== 'RIFF' && riff !== 'RF64' && riff !== 'BW64') || fourCC(bytes, 8) !== 'WAVE') {
    throw corrupt('no RIFF/WAVE header');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let ds64DataSize: number | undefined;
  let fmt: Omit<WavLayout, 'dataOffset' | 'frames'> | undefined;
  let dataOffset = -1;
  let dataSize = 0;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = fourCC(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'ds64' && size >= 16) {
      ds64DataSize = Number(view.getBigUint64(body + 8, true));
    } else if (id === 'fmt ') {
      fmt = parseFmt(view, body, size);
    } else if (id === 'data') {
      dataOffset = body;
      const remaining = bytes.length - body;
      const declared = size === STREAMED_SIZE && ds64DataSize !== undefined ? ds64DataSize : size;
      // Writers that stream to a pipe cannot seek back, so they leave 0xFFFFFFFF (or 0) as the size:
      // the audio then runs to the end of the file. A truncated download also ends early.
      const streamed = size === STREAMED_SIZE || (size === 0 && remaining > 0 && !looksLikeChunkId(bytes, body));
      dataSize = streamed || declared > remaining ? remaining : declared;
      if (fmt) break;
    }
    if (size === STREAMED_SIZE) break;
    let next = body + size;
    // RIFF pads odd chunks to an even length; some writers forget the pad byte.
    if (size % 2 === 1 && !(looksLikeChunkId(bytes, next) && !looksLikeChunkId(bytes, next + 1))) next += 1;
    at = next;
  }
  if (!fmt) throw corrupt('no format chunk');
  if (dataOffset < 0) throw corrupt('no audio data chunk');
  const frames = Math.floor(dataSize / fmt.blockAlign);
  if (frames === 0) throw new MediaError('The WAV file contains no audio.', { code: 'empty' });
  return { ...fmt, dataOffset, frames };
}

function parseFmt(view: DataView, at: number, size: number): Omit<WavLayout, 'dataOffset' | 'frames'> {
  if (size < 16 || at + 16 > view.byteLength) throw corrupt('format chunk too short');
  let formatTag = view.getUint16(at, true);
  const channelCount = view.getUint16(at + 2, true);
  const sampleRate = view.getUint32(at + 4, true);
  const blockAlign = view.getUint16(at + 12, true);
  const bitsPerSample = view.getUint16(at + 14, true);
  if (formatTag === WAVE_FORMAT_EXTENSIBLE) {
    if (size < 40 || at + 26 > view.byteLength) throw corrupt('extensible format chunk too short');
    formatTag = view.getUint16(at + 24, true);
  }
  if (formatTag === WAVE_FORMAT_PCM || formatTag === WAVE_FORMAT_IEEE_FLOAT) {
    if (channelCount === 0 || sampleRate === 0) throw corrupt('zero channels or sample rate');
    if (sampleRate > MAX_SAMPLE_RATE) throw unlikelyRate(sampleRate);
    if (channelCount > MAX_DECODED_CHANNELS) throw tooManyChannels(channelCount);
    const bytesPerSample = blockAlign % channelCount === 0 ? blockAlign / channelCount : 0;
    if (bytesPerSample === 0 || bytesPerSample * 8 < bitsPerSample) throw corrupt('inconsistent block size');
    if (formatTag === WAVE_FORMAT_PCM && bytesPerSample <= 4) {
      return { kind: 'int', bytesPerSample, channelCount, sampleRate, blockAlign };
    }
    if (formatTag === WAVE_FORMAT_IEEE_FLOAT && (bytesPerSample === 4 || bytesPerSample === 8)) {
      return { kind: 'float', bytesPerSample, channelCount, sampleRate, blockAlign };
    }
  }
  throw new MediaError(
    `This WAV file uses an encoding Herald cannot read (format ${formatTag}, ${bitsPerSample}-bit); ` +
      'please send plain PCM or float WAV, MP3, or a voice message.',
    { code: 'unsupported_format' },
  );
}

function sampleReader(view: DataView, kind: SampleKind, bytesPerSample: number): (at: number) => number {
  if (kind === 'float') {
    const read = bytesPerSample === 4 ? (at: number) => view.getFloat32(at, true) : (at: number) => view.getFloat64(at, true);
    return (at) => {
      const v = read(at);
      return v > 1 ? 1 : v < -1 ? -1 : Number.isNaN(v) ? 0 : v;
    };
  }
  switch (bytesPerSample) {
    case 1:
      return (at) => (view.getUint8(at) - 128) / 128;
    case 2:
      return (at) => view.getInt16(at, true) / 32768;
    case 3:
      return (at) => ((view.getInt8(at + 2) << 16) | view.getUint16(at, true)) / 8388608;
    default:
      return (at) => view.getInt32(at, true) / 2147483648;
  }
}

function readFrames(bytes: Uint8Array, layout: WavLayout, from: number, to: number): PcmAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = sampleReader(view, layout.kind, layout.bytesPerSample);
  const channels: Float32Array[] = [];
  for (let c = 0; c < layout.channelCount; c++) {
    const out = new Float32Array(to - from);
    let at = layout.dataOffset + from * layout.blockAlign + c * layout.bytesPerSample;
    for (let i = 0; i < out.length; i++, at += layout.blockAlign) out[i] = read(at);
    channels.push(out);
  }
  return { sampleRate: layout.sampleRate, channels };
}

/** Decodes a WAV (RIFF, RF64 or BW64) file to planar float samples. */
export function readWav(bytes: Uint8Array): PcmAudio {
  const layout = parseLayout(bytes);
  return readFrames(bytes, layout, 0, layout.frames);
}

/** Decodes a WAV file piece by piece, `framesPerPiece` frames at a time, so that no piece is larger than that. */
export function* readWavPieces(bytes: Uint8Array, framesPerPiece: number): Generator<PcmAudio> {
  const layout = parseLayout(bytes);
  for (let from = 0; from < layout.frames; from += framesPerPiece) {
    yield readFrames(bytes, layout, from, Math.min(layout.frames, from + framesPerPiece));
  }
}

/** Encodes interleaved 16-bit samples as a canonical 44-byte-header PCM WAV. */
export function writeWav(samples: Int16Array, sampleRate: number, channels: number): Buffer {
  if (!Number.isInteger(channels) || channels < 1 || samples.length % channels !== 0) {
    throw new RangeError(`writeWav: ${samples.length} samples do not divide into ${channels} channels`);
  }
  const dataBytes = samples.length * 2;
  const out = Buffer.alloc(44 + dataBytes);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(WAVE_FORMAT_PCM, 20);
  out.writeUInt16LE(channels, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * channels * 2, 28);
  out.writeUInt16LE(channels * 2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(dataBytes, 40);
  if (LITTLE_ENDIAN_HOST && (out.byteOffset + 44) % 2 === 0) {
    new Int16Array(out.buffer, out.byteOffset + 44, samples.length).set(samples);
  } else {
    const view = new DataView(out.buffer, out.byteOffset + 44, dataBytes);
    for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  }
  return out;
}

/** Duration of a WAV file from its header alone. */
export function wavDurationSeconds(bytes: Uint8Array): number {
  const layout = parseLayout(bytes);
  return layout.frames / layout.sampleRate;
}
