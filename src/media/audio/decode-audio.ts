import { setImmediate as nextTurn } from 'node:timers/promises';
import { MediaError } from '../../errors.ts';
import { readWav, type PcmAudio } from '../wav.ts';
import { createResampler } from './resample.ts';
import { completeOggPages } from './ogg-pages.ts';
import { demuxMatroskaAudio, type MatroskaTrack } from './matroska.ts';
import type { AudioFormat } from './sniff-audio.ts';
import {
  withFlacDecoder,
  withMpegDecoder,
  withOggOpusDecoder,
  withOggVorbisDecoder,
  withOpusDecoder,
  type OpusSampleRate,
  type OpusStreamConfig,
} from './wasm-decoders.ts';

/** Formats decoded inside the process; the rest (MP4/M4A, ADTS AAC, other Matroska codecs) need ffmpeg. */
export type InProcessFormat = 'ogg-opus' | 'ogg-vorbis' | 'ogg-flac' | 'webm-opus' | 'wav' | 'mp3' | 'mp2' | 'flac';

const IN_PROCESS = new Set<AudioFormat>(['ogg-opus', 'ogg-vorbis', 'ogg-flac', 'webm-opus', 'wav', 'mp3', 'mp2', 'flac']);

export function isInProcessFormat(format: AudioFormat): format is InProcessFormat {
  return IN_PROCESS.has(format);
}

export interface DecodeOptions {
  /**
   * Rate at which libopus renders Opus (it synthesises any of its rates natively, so asking for 16 kHz
   * skips a resampling pass). Other codecs decode at the file's own rate. Default 48000.
   */
  opusSampleRate?: OpusSampleRate;
}

interface DecodedChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: unknown[];
}

const CHUNK_BYTES = 64 * 1024;
const EMPTY_RECORDING_MAX_BYTES = 4096;
// Zero bytes keep a frame's CRC-16 valid, so the padding is absorbed by the last frame unnoticed.
const FLAC_TAIL_PADDING = 32;

function damaged(cause?: unknown): MediaError {
  return new MediaError('This audio file is damaged and could not be decoded.', { code: 'corrupt', cause });
}

/**
 * Decodes `bytes` piece by piece, handing each piece of planar audio to `onAudio` as it comes
 * (a throwing `onAudio`, e.g. on a length limit, stops decoding). Throws MediaError `empty` when a
 * small file holds no audio, `corrupt` when nothing decodes from a larger one or from broken data.
 */
export async function decodeStream(
  bytes: Uint8Array,
  format: InProcessFormat,
  onAudio: (audio: PcmAudio) => void,
  options: DecodeOptions = {},
): Promise<void> {
  let samples = 0;
  let errors = 0;
  const deliver = (decoded: DecodedChunk) => {
    errors += decoded.errors.length;
    if (decoded.samplesDecoded === 0) return;
    samples += decoded.samplesDecoded;
    onAudio({ sampleRate: decoded.sampleRate, channels: decoded.channelData.map((c) => c.subarray(0, decoded.samplesDecoded)) });
  };
  const input = format.startsWith('ogg-') ? completeOggPages(bytes) : bytes;
  // The wasm decoders work synchronously: between chunks the event loop gets a turn, so a long
  // recording does not stall the bot's gateway connections while it decodes.
  const chunks = async function* () {
    for (let at = 0; at < input.length; at += CHUNK_BYTES) {
      yield input.subarray(at, at + CHUNK_BYTES);
      await nextTurn();
    }
  };
  const opusRate = options.opusSampleRate ?? 48000;
  try {
    switch (format) {
      case 'wav': {
        const audio = readWav(bytes);
        samples = audio.channels[0]!.length;
        onAudio(audio);
        break;
      }
      case 'ogg-opus':
        await withOggOpusDecoder(opusRate, async (decoder) => {
          for await (const chunk of chunks()) deliver(await decoder.decode(chunk));
          deliver(await decoder.flush());
        });
        break;
      case 'webm-opus':
        await decodeWebmOpus(bytes, opusRate, deliver);
        break;
      case 'flac':
      case 'ogg-flac':
        await withFlacDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(await decoder.decode(chunk));
          // codec-parser delimits a native FLAC frame by finding the next frame's header; at the end of the
          // file it would otherwise glue the last two frames together and lose the final one.
          if (format === 'flac') deliver(await decoder.decode(new Uint8Array(FLAC_TAIL_PADDING)));
          deliver(await decoder.flush());
        });
        break;
      case 'ogg-vorbis':
        await withOggVorbisDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(await decoder.decode(chunk));
          deliver(await decoder.flush());
        });
        break;
      case 'mp3':
      case 'mp2':
        await withMpegDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(decoder.decode(chunk));
        });
        break;
    }
  } catch (error) {
    if (error instanceof MediaError) throw error;
    throw damaged(error);
  }
  if (samples === 0) {
    // Headers of a zero-length recording take a few hundred bytes; anything bigger that yields no audio is damaged.
    if (errors > 0 || bytes.length > EMPTY_RECORDING_MAX_BYTES) throw damaged();
    throw new MediaError('The audio file contains no sound to transcribe.', { code: 'empty' });
  }
}

/** Decodes a whole file into one planar buffer (a chained stream that changes rate is resampled to its first rate). */
export async function decodeAudio(bytes: Uint8Array, format: InProcessFormat, options: DecodeOptions = {}): Promise<PcmAudio> {
  const pieces: PcmAudio[] = [];
  await decodeStream(bytes, format, (audio) => pieces.push(audio), options);
  const sampleRate = pieces[0]!.sampleRate;
  if (pieces.length === 1) return pieces[0]!;
  const channelCount = Math.max(...pieces.map((p) => p.channels.length));
  const uniform = pieces.map((piece) => {
    const channels = Array.from({ length: channelCount }, (_, c) => piece.channels[Math.min(c, piece.channels.length - 1)]!);
    if (piece.sampleRate === sampleRate) return channels;
    return channels.map((channel) => {
      const resampler = createResampler(piece.sampleRate, sampleRate);
      return concat([resampler.push(channel), resampler.flush()]);
    });
  });
  return { sampleRate, channels: Array.from({ length: channelCount }, (_, c) => concat(uniform.map((p) => p[c]!))) };
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

interface OpusHead {
  channels: number;
  preSkip: number;
  mappingFamily: number;
  streamCount: number;
  coupledStreamCount: number;
  channelMappingTable: number[];
}

function parseOpusHead(data: Uint8Array | undefined): OpusHead | undefined {
  if (!data || data.length < 19 || String.fromCharCode(...data.subarray(0, 8)) !== 'OpusHead') return undefined;
  const channels = data[9]!;
  const preSkip = data[10]! | (data[11]! << 8);
  const mappingFamily = data[18]!;
  if (mappingFamily === 0 || data.length < 21 + channels) {
    return { channels, preSkip, mappingFamily, streamCount: 1, coupledStreamCount: channels - 1, channelMappingTable: channels === 2 ? [0, 1] : [0] };
  }
  return {
    channels,
    preSkip,
    mappingFamily,
    streamCount: data[19]!,
    coupledStreamCount: data[20]!,
    channelMappingTable: [...data.subarray(21, 21 + channels)],
  };
}

function opusConfig(track: MatroskaTrack, sampleRate: OpusSampleRate): OpusStreamConfig {
  // The OpusHead's pre-skip is what libopus-based players (ffmpeg among them) apply; CodecDelay says the same in ns.
  const head = parseOpusHead(track.codecPrivate);
  const preSkip48k = head ? head.preSkip : Math.round((track.codecDelayNs * 48000) / 1e9);
  const channels = head?.channels ?? Math.max(1, Math.min(2, track.channels));
  return {
    sampleRate,
    channels,
    streamCount: head?.streamCount ?? 1,
    coupledStreamCount: head?.coupledStreamCount ?? channels - 1,
    channelMappingTable: head?.channelMappingTable ?? (channels === 2 ? [0, 1] : [0]),
    preSkip: Math.round((preSkip48k * sampleRate) / 48000),
  };
}

const OPUS_FRAMES_PER_BATCH = 500;

async function decodeWebmOpus(bytes: Uint8Array, sampleRate: OpusSampleRate, deliver: (decoded: DecodedChunk) => void): Promise<void> {
  const { track, packets } = demuxMatroskaAudio(bytes);
  await withOpusDecoder(opusConfig(track, sampleRate), async (decoder) => {
    let batch: Uint8Array[] = [];
    for (let i = 0; i < packets.length; i++) {
      const packet = packets[i]!;
      batch.push(packet.data);
      if (batch.length < OPUS_FRAMES_PER_BATCH && packet.discardPaddingNs <= 0 && i < packets.length - 1) continue;
      const decoded = decoder.decodeFrames(batch);
      batch = [];
      await nextTurn();
      // DiscardPadding marks encoder padding at the end of the last block: drop it, as ffmpeg does.
      const trim = Math.min(decoded.samplesDecoded, Math.round((Math.max(0, packet.discardPaddingNs) * sampleRate) / 1e9));
      deliver({ ...decoded, samplesDecoded: decoded.samplesDecoded - trim });
    }
  });
}
