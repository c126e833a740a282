import { MediaError } from '../../errors.ts';
import { readMatroskaInfo } from './matroska.ts';

/** Audio formats Herald can take in, as recognised from the bytes. */
export type AudioFormat =
  | 'ogg-opus'
  | 'ogg-vorbis'
  | 'ogg-flac'
  | 'webm-opus'
  | 'matroska-audio'
  | 'wav'
  | 'mp3'
  | 'mp2'
  | 'mp4'
  | 'aac-adts'
  | 'flac';

export interface SniffedAudio {
  format: AudioFormat;
  /** What a person would call it, e.g. "Ogg Opus" or "M4A (MPEG-4 audio)". */
  label: string;
}

const ACCEPTED = 'a voice message or an audio file (Ogg/Opus, WebM, M4A, MP3, WAV, FLAC or Ogg Vorbis)';

function unsupported(what: string | undefined): MediaError {
  const found = what ? `it looks like ${what}, not audio Herald can read` : 'Herald does not recognise it as audio';
  return new MediaError(`Herald can't transcribe this file: ${found}. Please send ${ACCEPTED}.`, {
    code: 'unsupported_format',
  });
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  if (at + length > bytes.length) return '';
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function startsWith(bytes: Uint8Array, at: number, ...values: number[]): boolean {
  return values.every((v, i) => bytes[at + i] === v);
}

const MPEG_BITRATES_KBPS: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_SAMPLE_RATES = [44100, 48000, 32000];

interface MpegFrame {
  layer: number;
  key: number;
  length: number;
}

/** Parses an MPEG-1/2/2.5 audio frame header (layers I–III) at `at`. */
function mpegFrame(bytes: Uint8Array, at: number): MpegFrame | undefined {
  if (at + 4 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const b1 = bytes[at + 1]!;
  const b2 = bytes[at + 2]!;
  const versionBits = (b1 >> 3) & 3; // 0: MPEG 2.5, 1: reserved, 2: MPEG 2, 3: MPEG 1
  const layer = 4 - ((b1 >> 1) & 3); // header bits 11,10,01 mean layers I,II,III
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (versionBits === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = versionBits === 3;
  const bitrate = MPEG_BITRATES_KBPS[`${mpeg1 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000;
  const sampleRate = MPEG_SAMPLE_RATES[rateIndex]! / (mpeg1 ? 1 : versionBits === 2 ? 2 : 4);
  const padding = (b2 >> 1) & 1;
  const length =
    layer === 1
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((layer === 3 && !mpeg1 ? 72 : 144) * bitrate) / sampleRate) + padding;
  return { layer, key: (b1 & 0xfe) * 4 + rateIndex, length };
}

interface AdtsFrame {
  /** The header fields every frame of one stream repeats: MPEG version, profile, rate, channels. */
  key: number;
  length: number;
}

function adtsFrame(bytes: Uint8Array, at: number): AdtsFrame | undefined {
  if (at + 7 > bytes.length || bytes[at] !== 0xff || (bytes[at + 1]! & 0xf6) !== 0xf0) return undefined;
  const b2 = bytes[at + 2]!;
  const channelConfig = ((b2 & 1) << 2) | (bytes[at + 3]! >> 6);
  if (((b2 >> 2) & 0xf) > 12 || channelConfig === 0) return undefined;
  const headerLength = bytes[at + 1]! & 1 ? 7 : 9;
  const length = ((bytes[at + 3]! & 3) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5);
  if (length <= headerLength) return undefined;
  return { key: ((bytes[at + 1]! & 0x09) << 16) | ((b2 & 0xfd) << 8) | channelConfig, length };
}

/**
 * True when `count` whole frames follow each other from `at`, or when at least two do and then the
 * file ends (a short or truncated file). One lone sync word is too easy to find in random bytes.
 */
function framesChain(bytes: Uint8Array, at: number, count: number, next: (at: number) => number | undefined): boolean {
  let whole = 0;
  while (whole < count) {
    const length = next(at);
    if (length === undefined || at + length > bytes.length) return whole >= 2 && (length === undefined ? at >= bytes.length : true);
    at += length;
    whole++;
  }
  return true;
}

function sniffMpegOrAdts(bytes: Uint8Array, from: number, searchLimit: number): SniffedAudio | undefined {
  const end = Math.min(bytes.length - 3, from + searchLimit);
  for (let at = from; at < end; at++) {
    if (bytes[at] !== 0xff) continue;
    const frame = mpegFrame(bytes, at);
    if (frame) {
      const sameStream = (p: number) => {
        const f = mpegFrame(bytes, p);
        return f && f.key === frame.key ? f.length : undefined;
      };
      if (framesChain(bytes, at, 3, sameStream)) {
        return frame.layer === 3 ? { format: 'mp3', label: 'MP3' } : { format: 'mp2', label: `MPEG audio layer ${frame.layer === 1 ? 'I' : 'II'}` };
      }
    }
    const adts = adtsFrame(bytes, at);
    const sameAdtsStream = (p: number) => {
      const f = adtsFrame(bytes, p);
      return f && f.key === adts!.key ? f.length : undefined;
    };
    if (adts && framesChain(bytes, at, 3, sameAdtsStream)) {
      return { format: 'aac-adts', label: 'AAC (ADTS)' };
    }
  }
  return undefined;
}

function id3v2End(bytes: Uint8Array): number {
  let at = 0;
  // Some taggers stack several ID3v2 tags.
  while (ascii(bytes, at, 3) === 'ID3' && at + 10 <= bytes.length) {
    const size = ((bytes[at + 6]! & 0x7f) << 21) | ((bytes[at + 7]! & 0x7f) << 14) | ((bytes[at + 8]! & 0x7f) << 7) | (bytes[at + 9]! & 0x7f);
    const footer = bytes[at + 5]! & 0x10 ? 10 : 0;
    at += 10 + size + footer;
  }
  return at;
}

function sniffOgg(bytes: Uint8Array): SniffedAudio {
  const segments = bytes[26] ?? 0;
  const packet = 27 + segments;
  if (packet + 8 > bytes.length) throw new MediaError('This Ogg file is damaged or incomplete (no stream header).', { code: 'corrupt' });
  if (ascii(bytes, packet, 8) === 'OpusHead') return { format: 'ogg-opus', label: 'Ogg Opus' };
  if (bytes[packet] === 1 && ascii(bytes, packet + 1, 6) === 'vorbis') return { format: 'ogg-vorbis', label: 'Ogg Vorbis' };
  if (bytes[packet] === 0x7f && ascii(bytes, packet + 1, 4) === 'FLAC') return { format: 'ogg-flac', label: 'Ogg FLAC' };
  if (ascii(bytes, packet, 8) === 'Speex   ') throw unsupported('Ogg Speex audio');
  if (bytes[packet] === 0x80 && ascii(bytes, packet + 1, 6) === 'theora') throw unsupported('an Ogg video (Theora)');
  throw unsupported('an Ogg file with an unknown codec');
}

const MATROSKA_CODECS: Record<string, string> = {
  A_OPUS: 'Opus',
  A_VORBIS: 'Vorbis',
  A_FLAC: 'FLAC',
  A_AAC: 'AAC',
  'A_MPEG/L3': 'MP3',
  A_AC3: 'AC-3',
  A_EAC3: 'E-AC-3',
};

function sniffMatroska(bytes: Uint8Array): SniffedAudio {
  const info = readMatroskaInfo(bytes);
  const container = info.docType === 'webm' ? 'WebM' : 'Matroska';
  const audio = info.tracks.find((t) => t.type === 2);
  if (!audio) {
    throw unsupported(info.tracks.some((t) => t.type === 1) ? `a ${container} video without sound` : `a ${container} file without sound`);
  }
  const codec = MATROSKA_CODECS[audio.codecId] ?? MATROSKA_CODECS[audio.codecId.split('/')[0]!] ?? audio.codecId;
  const label = `${container} (${codec})`;
  return audio.codecId === 'A_OPUS' ? { format: 'webm-opus', label } : { format: 'matroska-audio', label };
}

const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

function sniffIsoMedia(bytes: Uint8Array): SniffedAudio {
  const major = ascii(bytes, 8, 4);
  if (IMAGE_BRANDS.has(major)) throw unsupported(`an image (${major.startsWith('avi') ? 'AVIF' : 'HEIC'})`);
  if (major === 'M4A ' || major === 'M4B ' || major === 'M4P ') return { format: 'mp4', label: 'M4A (MPEG-4 audio)' };
  if (major.startsWith('3g')) return { format: 'mp4', label: '3GP' };
  if (major === 'qt  ') return { format: 'mp4', label: 'QuickTime movie' };
  return { format: 'mp4', label: 'MP4' };
}

function describeOther(bytes: Uint8Array): string | undefined {
  const head4 = ascii(bytes, 0, 4);
  if (startsWith(bytes, 0, 0x89, 0x50, 0x4e, 0x47)) return 'an image (PNG)';
  if (startsWith(bytes, 0, 0xff, 0xd8, 0xff)) return 'an image (JPEG)';
  if (head4 === 'GIF8') return 'an image (GIF)';
  if (head4 === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'an image (WebP)';
  if (head4 === 'II*\0' || head4 === 'MM\0*') return 'an image (TIFF)';
  if (head4 === 'RIFF' && ascii(bytes, 8, 4) === 'AVI ') return 'a video file (AVI)';
  if (startsWith(bytes, 0, 0, 0, 1, 0xba) || (bytes[0] === 0x47 && bytes[188] === 0x47)) return 'a video file (MPEG)';
  if (head4 === 'FORM' && ascii(bytes, 8, 3) === 'AIF') return 'AIFF audio, which Herald does not read';
  if (ascii(bytes, 0, 5) === '#!AMR') return 'AMR audio, which Herald does not read';
  if (head4 === 'MThd') return 'a MIDI file (notes, not recorded sound)';
  if (head4 === '%PDF') return 'a PDF document';
  if (startsWith(bytes, 0, 0x50, 0x4b, 0x03, 0x04)) return 'a ZIP archive or office document';
  return describeText(bytes);
}

function describeText(bytes: Uint8Array): string | undefined {
  const head = bytes.subarray(0, 1024);
  for (const b of head) if (b < 0x09 || (b > 0x0d && b < 0x20) || b === 0x7f) return undefined;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  if (text.includes('\uFFFD')) return undefined;
  const start = text.trimStart().slice(0, 200).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'a web page (HTML)';
  if (start.startsWith('<svg') || (start.startsWith('<?xml') && start.includes('<svg'))) return 'an image (SVG)';
  return 'a text file';
}

/**
 * Identifies the audio format from the bytes alone; names and MIME types from chat apps are unreliable.
 * Throws MediaError `empty`, `corrupt` or `unsupported_format` (naming what the file seems to be).
 */
export function sniffAudio(bytes: Uint8Array): SniffedAudio {
  if (bytes.length === 0) throw new MediaError('The audio file is empty.', { code: 'empty' });
  const head4 = ascii(bytes, 0, 4);
  if (head4 === 'OggS') return sniffOgg(bytes);
  if (startsWith(bytes, 0, 0x1a, 0x45, 0xdf, 0xa3)) return sniffMatroska(bytes);
  if ((head4 === 'RIFF' || head4 === 'RF64' || head4 === 'BW64') && ascii(bytes, 8, 4) === 'WAVE') return { format: 'wav', label: 'WAV' };
  if (head4 === 'fLaC') return { format: 'flac', label: 'FLAC' };
  if (ascii(bytes, 4, 4) === 'ftyp') return sniffIsoMedia(bytes);
  const afterId3 = id3v2End(bytes);
  if (afterId3 > 0 && ascii(bytes, afterId3, 4) === 'fLaC') return { format: 'flac', label: 'FLAC' };
  // Tagged files may carry padding or junk before the first frame; untagged ones start almost at once.
  const found = sniffMpegOrAdts(bytes, afterId3, afterId3 > 0 ? 65536 : 4096);
  if (found) return found;
  if (afterId3 > 0) throw new MediaError('This MP3 file is damaged: it has a tag but no audio frames.', { code: 'corrupt' });
  throw unsupported(describeOther(bytes));
}
