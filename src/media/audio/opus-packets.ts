import { setImmediate as nextTurn } from 'node:timers/promises';
import { nativeOpus, opusBackend, type OpusBackend } from '../opus-backend.ts';
import { MAX_DECODED_CHANNELS, tooManyChannels } from './audio-limits.ts';
import { withOpusDecoder, type OpusSampleRate } from './wasm-decoders.ts';
import { quietly } from './quiet-console.ts';

/** The identification header of an Opus stream (RFC 7845 §5.1), as Ogg and Matroska carry it. */
export interface OpusHead {
  channels: number;
  /** 48 kHz samples the decoder must discard at the start. */
  preSkip: number;
  /** Gain the player applies, in dB. */
  outputGainDb: number;
  mappingFamily: number;
  streamCount: number;
  coupledStreamCount: number;
  channelMappingTable: number[];
}

/** The header, or undefined when it is missing or describes no valid channel layout (RFC 7845 §5.1.1). */
export function parseOpusHead(data: Uint8Array | undefined): OpusHead | undefined {
  if (!data || data.length < 19 || String.fromCharCode(...data.subarray(0, 8)) !== 'OpusHead') return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const channels = data[9]!;
  const base = { channels, preSkip: view.getUint16(10, true), outputGainDb: view.getInt16(16, true) / 256, mappingFamily: data[18]! };
  if (base.mappingFamily === 0) {
    if (channels < 1 || channels > 2) return undefined;
    return { ...base, streamCount: 1, coupledStreamCount: channels - 1, channelMappingTable: channels === 2 ? [0, 1] : [0] };
  }
  const streamCount = data[19] ?? 0;
  const coupledStreamCount = data[20] ?? 0;
  const decoded = streamCount + coupledStreamCount;
  if (channels < 1 || data.length < 21 + channels || streamCount < 1 || coupledStreamCount > streamCount || decoded > 255) return undefined;
  const channelMappingTable = [...data.subarray(21, 21 + channels)];
  if (channelMappingTable.some((index) => index !== 255 && index >= decoded)) return undefined;
  return { ...base, streamCount, coupledStreamCount, channelMappingTable };
}

const FRAME_SAMPLES_48K = [
  480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
  120, 240, 480, 960,
];

/** Samples (48 kHz) one packet decodes to, from its TOC byte (RFC 6716 §3.1); 0 for a malformed packet. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 0;
  const toc = packet[0]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : packet.length > 1 ? packet[1]! & 0x3f : 0;
  return FRAME_SAMPLES_48K[toc >> 3]! * frames;
}

export interface OpusPacket {
  data: Uint8Array;
  /** 48 kHz samples of this packet's end that are encoder padding (Ogg's end granule, WebM's DiscardPadding). */
  trimEnd48k?: number;
}

export interface DecodedOpusChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: OpusSampleRate;
  errors: unknown[];
}

/** One decoded packet: its length, and a copy of `count` samples from `start` into planar output at `at`. */
interface DecodedPacket {
  length: number;
  copyTo(channelData: Float32Array[], at: number, start: number, count: number): void;
}

/** One packet in (an Error back for a packet libopus rejects). */
interface PacketDecoder {
  decode(packet: Uint8Array): DecodedPacket | Error;
}

function nativeDecoder(head: OpusHead, sampleRate: OpusSampleRate): PacketDecoder | undefined {
  const Native = nativeOpus();
  const identityMapping = head.channelMappingTable.every((stream, channel) => stream === channel);
  // @discordjs/opus wraps libopus's one-stream decoder: multistream (surround) files take the wasm decoder.
  if (!Native || head.streamCount !== 1 || head.channels > 2 || !identityMapping) return undefined;
  const codec = new Native(sampleRate, head.channels);
  const channels = head.channels;
  return {
    decode(packet) {
      let pcm: Buffer;
      try {
        pcm = codec.decode(Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength));
      } catch (error) {
        return error as Error;
      }
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength >> 1);
      return {
        length: samples.length / channels,
        copyTo(channelData, at, start, count) {
          for (let c = 0; c < channels; c++) {
            const out = channelData[c]!;
            for (let i = 0, j = start * channels + c; i < count; i++, j += channels) out[at + i] = samples[j]! / 32768;
          }
        },
      };
    },
  };
}

const PACKETS_PER_TURN = 500;
const BATCH_SAMPLES = 4 * 1024 * 1024;

/**
 * Decodes one Opus stream's packets with native libopus when it is installed (wasm otherwise),
 * dropping the pre-skip at the start and each packet's trimmed end, applying the header's output
 * gain, and handing the audio over in pieces with a turn of the event loop between them.
 */
export async function decodeOpusPackets(
  head: OpusHead,
  packets: OpusPacket[],
  options: { sampleRate: OpusSampleRate; backend?: OpusBackend },
  deliver: (chunk: DecodedOpusChunk) => void,
): Promise<void> {
  const { sampleRate } = options;
  if (head.channels > MAX_DECODED_CHANNELS) throw tooManyChannels(head.channels);
  const native = opusBackend(options.backend) === 'native' ? nativeDecoder(head, sampleRate) : undefined;
  if (native) return decodeWith(native, head, packets, sampleRate, deliver);
  const config = {
    sampleRate,
    channels: head.channels,
    streamCount: head.streamCount,
    coupledStreamCount: head.coupledStreamCount,
    channelMappingTable: head.channelMappingTable,
    preSkip: 0,
  };
  await withOpusDecoder(config, (wasm) =>
    decodeWith(
      {
        decode(packet) {
          const decoded = quietly(() => wasm.decodeFrame(packet));
          if (decoded.errors.length > 0 && decoded.samplesDecoded === 0) return new Error(decoded.errors[0]!.message);
          return {
            length: decoded.samplesDecoded,
            copyTo(channelData, at, start, count) {
              channelData.forEach((out, c) => out.set(decoded.channelData[c]!.subarray(start, start + count), at));
            },
          };
        },
      },
      head,
      packets,
      sampleRate,
      deliver,
    ),
  );
}

async function decodeWith(
  decoder: PacketDecoder,
  head: OpusHead,
  packets: OpusPacket[],
  sampleRate: OpusSampleRate,
  deliver: (chunk: DecodedOpusChunk) => void,
): Promise<void> {
  const perSample48k = sampleRate / 48000;
  const gain = head.outputGainDb === 0 ? 1 : 10 ** (head.outputGainDb / 20);
  let skip = Math.round(head.preSkip * perSample48k);
  for (let first = 0; first < packets.length; ) {
    // A batch holds at most PACKETS_PER_TURN packets and BATCH_SAMPLES samples over all channels: a header may
    // declare 255 channels, and each tiny packet 120 ms of them.
    let end = first;
    let samples48k = 0;
    while (end < packets.length && end - first < PACKETS_PER_TURN) {
      const next = opusPacketSamples(packets[end]!.data);
      if (end > first && (samples48k + next) * perSample48k * head.channels > BATCH_SAMPLES) break;
      samples48k += next;
      end += 1;
    }
    const batch = packets.slice(first, end);
    first = end;
    const capacity = samples48k * perSample48k;
    const channelData = Array.from({ length: head.channels }, () => new Float32Array(capacity));
    const errors: unknown[] = [];
    let length = 0;
    for (const packet of batch) {
      const decoded = decoder.decode(packet.data);
      if (decoded instanceof Error) {
        errors.push(decoded);
        continue;
      }
      const end = Math.max(0, decoded.length - Math.round((packet.trimEnd48k ?? 0) * perSample48k));
      const start = Math.min(skip, end);
      skip -= start;
      const count = Math.min(end - start, capacity - length);
      decoded.copyTo(channelData, length, start, count);
      length += count;
    }
    if (gain !== 1) for (const channel of channelData) for (let i = 0; i < length; i++) channel[i] = channel[i]! * gain;
    deliver({ channelData, samplesDecoded: length, sampleRate, errors });
    await nextTurn();
  }
}
