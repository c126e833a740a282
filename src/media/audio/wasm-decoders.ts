import type { OpusDecoder } from 'opus-decoder';
import type { FLACDecoder } from '@wasm-audio-decoders/flac';
import type { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import type { MPEGDecoder } from 'mpg123-decoder';

/**
 * The WebAssembly decoders load on first use (their modules are compiled once by the library) and
 * finished instances are reset and kept for the next file. An instance serves one file at a time.
 */
interface Reusable {
  ready: Promise<void>;
  reset(): Promise<void>;
  free(): void;
}

const MAX_IDLE_PER_KIND = 2;
const idle = new Map<string, Reusable[]>();

async function withPooled<T extends Reusable, R>(key: string, create: () => Promise<T>, use: (decoder: T) => Promise<R>): Promise<R> {
  const decoder = (idle.get(key)?.pop() as T | undefined) ?? (await create());
  await decoder.ready;
  let result: R;
  try {
    result = await use(decoder);
  } catch (error) {
    decoder.free();
    throw error;
  }
  const list = idle.get(key) ?? [];
  if (list.length < MAX_IDLE_PER_KIND) {
    await decoder.reset();
    list.push(decoder);
    idle.set(key, list);
  } else {
    decoder.free();
  }
  return result;
}

export type OpusSampleRate = 16000 | 48000;

export interface OpusStreamConfig {
  sampleRate: OpusSampleRate;
  channels: number;
  streamCount: number;
  coupledStreamCount: number;
  channelMappingTable: number[];
  /** In output samples. */
  preSkip: number;
}

export function withOpusDecoder<R>(config: OpusStreamConfig, use: (decoder: OpusDecoder<OpusSampleRate>) => Promise<R>): Promise<R> {
  return withPooled(
    `opus:${JSON.stringify(config)}`,
    async () => {
      const { OpusDecoder } = await import('opus-decoder');
      return new OpusDecoder<OpusSampleRate>(config);
    },
    use,
  );
}

export function withFlacDecoder<R>(use: (decoder: FLACDecoder) => Promise<R>): Promise<R> {
  return withPooled(
    'flac',
    async () => {
      const { FLACDecoder } = await import('@wasm-audio-decoders/flac');
      return new FLACDecoder();
    },
    use,
  );
}

export function withOggVorbisDecoder<R>(use: (decoder: OggVorbisDecoder) => Promise<R>): Promise<R> {
  return withPooled(
    'ogg-vorbis',
    async () => {
      const { OggVorbisDecoder } = await import('@wasm-audio-decoders/ogg-vorbis');
      return new OggVorbisDecoder();
    },
    use,
  );
}

export function withMpegDecoder<R>(use: (decoder: MPEGDecoder) => Promise<R>): Promise<R> {
  return withPooled(
    'mpeg',
    async () => {
      const { MPEGDecoder } = await import('mpg123-decoder');
      return new MPEGDecoder();
    },
    use,
  );
}
