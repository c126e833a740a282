import { setImmediate as nextTurn } from 'node:timers/promises';
import { MediaError } from '../../errors.ts';
import { readWavPieces, type PcmAudio } from '../wav.ts';
import { createResampler } from './resample.ts';
import { completeOggPages } from './ogg-pages.ts';
import { demuxMatroskaAudio } from './matroska.ts';
import type { AudioFormat } from './sniff-audio.ts';
import type { OpusBackend } from '../opus-backend.ts';
import { demuxOgg } from './ogg-demux.ts';
import { decodeOpusPackets, opusPacketSamples, parseOpusHead, type OpusPacket } from './opus-packets.ts';
import { withFlacDecoder, withMpegDecoder, withOggVorbisDecoder, type OpusSampleRate } from './wasm-decoders.ts';
import { quietly } from './quiet-console.ts';

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
  /** Default: native libopus when it is installed. */
  opusBackend?: OpusBackend;
}

type OpusOptions = { sampleRate: OpusSampleRate; backend?: OpusBackend };

interface DecodedChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: unknown[];
}

const CHUNK_BYTES = 64 * 1024;
const WAV_FRAMES_PER_PIECE = 64 * 1024;
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
  const opusOptions: OpusOptions = { sampleRate: options.opusSampleRate ?? 48000, backend: options.opusBackend };
  try {
    switch (format) {
      case 'wav':
        for (const audio of readWavPieces(bytes, WAV_FRAMES_PER_PIECE)) {
          samples += audio.channels[0]!.length;
          onAudio(audio);
          await nextTurn();
        }
        break;
      case 'ogg-opus':
        errors += await decodeOggOpus(bytes, opusOptions, deliver);
        break;
      case 'webm-opus':
        await decodeWebmOpus(bytes, opusOptions, deliver);
        break;
      case 'flac':
      case 'ogg-flac':
        await withFlacDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(await quietly(() => decoder.decode(chunk)));
          // codec-parser delimits a native FLAC frame by finding the next frame's header; at the end of the
          // file it would otherwise glue the last two frames together and lose the final one.
          if (format === 'flac') deliver(await quietly(() => decoder.decode(new Uint8Array(FLAC_TAIL_PADDING))));
          deliver(await quietly(() => decoder.flush()));
        });
        break;
      case 'ogg-vorbis':
        await withOggVorbisDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(await quietly(() => decoder.decode(chunk)));
          deliver(await quietly(() => decoder.flush()));
        });
        break;
      case 'mp3':
      case 'mp2':
        await withMpegDecoder(async (decoder) => {
          for await (const chunk of chunks()) deliver(quietly(() => decoder.decode(chunk)));
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

/** Ogg Opus: each logical stream that starts with an OpusHead, the end of its last page trimmed to its granule position. */
async function decodeOggOpus(bytes: Uint8Array, options: OpusOptions, deliver: (decoded: DecodedChunk) => void): Promise<number> {
  const { streams, damaged } = demuxOgg(bytes);
  for (const stream of streams) {
    const head = parseOpusHead(stream.packets[0]?.data);
    if (!head) continue;
    let position = 0;
    const packets: OpusPacket[] = stream.packets.slice(2).map(({ data, granule, last }) => {
      const samples = opusPacketSamples(data);
      position += samples;
      // Only the end-of-stream page's granule cuts audio (as libopusfile and ffmpeg do): it marks where the padding starts.
      return last && granule >= 0n ? { data, trimEnd48k: Math.min(samples, Math.max(0, position - Number(granule))) } : { data };
    });
    await decodeOpusPackets(head, packets, options, deliver);
  }
  return damaged;
}

/** WebM/Matroska Opus: pre-skip from the OpusHead in CodecPrivate (or CodecDelay), DiscardPadding trimmed as ffmpeg does. */
async function decodeWebmOpus(bytes: Uint8Array, options: OpusOptions, deliver: (decoded: DecodedChunk) => void): Promise<void> {
  const { track, packets } = demuxMatroskaAudio(bytes);
  const channels = Math.max(1, Math.min(2, track.channels));
  const head = parseOpusHead(track.codecPrivate) ?? {
    channels,
    preSkip: Math.round((track.codecDelayNs * 48000) / 1e9),
    outputGainDb: 0,
    mappingFamily: 0,
    streamCount: 1,
    coupledStreamCount: channels - 1,
    channelMappingTable: channels === 2 ? [0, 1] : [0],
  };
  const opusPackets = packets.map(({ data, discardPaddingNs }) =>
    discardPaddingNs > 0 ? { data, trimEnd48k: Math.round((discardPaddingNs * 48000) / 1e9) } : { data },
  );
  await decodeOpusPackets(head, opusPackets, options, deliver);
}
