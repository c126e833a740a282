import type { Transcript, TranscribeInput } from '../capabilities/transcribe.ts';
import { MediaError } from '../errors.ts';
import { estimateImageTokens } from '../media/image/image-tokens.ts';
import type { ContentPart } from '../service/types.ts';
import type { IncomingAudio, IncomingImage, ReplyEvent, ReplyUsage } from './types.ts';
import { addUsage } from './usage-meter.ts';

export interface PreparedImageInput {
  mime: string;
  data: Buffer;
  width: number;
  height: number;
}

export interface PreparedAudioInput {
  segments: { mime: 'audio/wav' | 'audio/mpeg'; data: Buffer }[];
  durationSeconds: number;
}

export type PrepareImageFunction = (bytes: Uint8Array) => Promise<PreparedImageInput>;
export type PrepareAudioFunction = (bytes: Uint8Array) => Promise<PreparedAudioInput>;
export type TranscribeFunction = (input: TranscribeInput) => Promise<Transcript>;

/** Estimate for an image whose size is unknown (a URL the service fetches): what a 1024x1024 picture costs. */
export const UNKNOWN_IMAGE_TOKENS = estimateImageTokens(1024, 1024);

export interface PreparedImages {
  parts: ContentPart[];
  /** One line per image for the stored history (the bytes are not kept): `photo.jpg, 1024x768`. */
  notes: string[];
  /** Estimated tokens by image URL, for the context budget. */
  tokensByUrl: Map<string, number>;
}

/**
 * Image attachments as `image_url` parts. Bytes go through `prepareImage` (format conversion, size
 * limits) when it is given, else pass as they are with their declared MIME type; URLs pass as they are.
 * One image at a time: the first that cannot be read ends the message's preparation.
 */
export async function prepareImages(images: readonly IncomingImage[], prepareImage: PrepareImageFunction | undefined): Promise<PreparedImages> {
  const prepared: { url: string; note: string; tokens: number }[] = [];
  for (const image of images) prepared.push(await prepareOne(image, prepareImage));
  return {
    parts: prepared.map((p) => ({ type: 'image_url', image_url: { url: p.url } })),
    notes: prepared.map((p) => p.note),
    tokensByUrl: new Map(prepared.map((p) => [p.url, p.tokens])),
  };
}

async function prepareOne(
  image: IncomingImage,
  prepareImage: PrepareImageFunction | undefined,
): Promise<{ url: string; note: string; tokens: number }> {
  if (image.data) {
    if (prepareImage) {
      const ready = await prepareImage(image.data);
      const url = `data:${ready.mime};base64,${ready.data.toString('base64')}`;
      return { url, note: `${image.name}, ${ready.width}x${ready.height}`, tokens: estimateImageTokens(ready.width, ready.height) };
    }
    if (!image.mime?.startsWith('image/')) {
      throw new MediaError(`I can't tell what kind of image "${image.name}" is.`, { code: 'unsupported_format' });
    }
    const url = `data:${image.mime};base64,${Buffer.from(image.data).toString('base64')}`;
    return { url, note: image.name, tokens: UNKNOWN_IMAGE_TOKENS };
  }
  if (image.url) return { url: image.url, note: image.name, tokens: UNKNOWN_IMAGE_TOKENS };
  throw new MediaError(`The image "${image.name}" has neither data nor a URL.`, { code: 'empty' });
}

export interface AudioTranscript {
  name: string;
  text: string;
  isVoiceMessage: boolean;
}

export interface TranscribeDeps {
  transcribe?: TranscribeFunction;
  prepareAudio?: PrepareAudioFunction;
  language?: 'auto' | 'zh' | 'en';
  signal: AbortSignal;
  usage: ReplyUsage;
  emit: (event: ReplyEvent) => void;
}

/**
 * Transcribes each audio attachment (its segments in order, joined), emitting a `transcript` event per
 * file. Without `prepareAudio` only WAV and MP3 can be sent, as they are.
 */
export async function transcribeAll(audio: readonly IncomingAudio[], deps: TranscribeDeps): Promise<AudioTranscript[]> {
  const { transcribe } = deps;
  if (!transcribe) throw new MediaError("I can't transcribe audio in this setup.", { code: 'unsupported_format' });
  deps.emit({ type: 'status', phase: 'transcribing', text: 'transcribing…' });
  const transcripts: AudioTranscript[] = [];
  for (const file of audio) {
    const segments = deps.prepareAudio ? (await deps.prepareAudio(file.data)).segments : [rawSegment(file)];
    const texts: string[] = [];
    for (const segment of segments) {
      const result = await transcribe({ audio: segment, language: deps.language, signal: deps.signal });
      addUsage(deps.usage, result.usage);
      if (result.text) texts.push(result.text);
    }
    const text = texts.join(' ').trim() || '(no speech recognized)';
    deps.emit({ type: 'transcript', name: file.name, text });
    transcripts.push({ name: file.name, text, isVoiceMessage: file.isVoiceMessage });
  }
  return transcripts;
}

function rawSegment(file: IncomingAudio): { mime: 'audio/wav' | 'audio/mpeg'; data: Buffer } {
  const mime =
    file.mime === 'audio/wav' || file.mime === 'audio/x-wav'
      ? 'audio/wav'
      : file.mime === 'audio/mpeg' || file.mime === 'audio/mp3'
        ? 'audio/mpeg'
        : undefined;
  if (!mime) throw new MediaError(`I can only read WAV and MP3 recordings here, not "${file.name}".`, { code: 'unsupported_format' });
  return { mime, data: Buffer.from(file.data) };
}
