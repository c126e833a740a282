import type { Attachment } from 'discord.js';
import { request } from 'undici';
import type { IncomingAudio, IncomingImage } from '../../src/conversation/types.ts';
import { HeraldError, MediaError } from '../../src/errors.ts';

/** Largest attachment Herald downloads; the media pipeline shrinks what it keeps. */
export const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'heic', 'heif', 'avif', 'tif', 'tiff', 'svg']);
const AUDIO_EXTENSIONS = new Set(['ogg', 'oga', 'opus', 'mp3', 'wav', 'flac', 'm4a', 'aac', 'webm', 'weba']);

type MediaKind = 'image' | 'audio';

/** Images and recordings by declared type, else by file extension (Discord guesses types from names too). */
function mediaKind(name: string, contentType: string | null | undefined): MediaKind | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (IMAGE_EXTENSIONS.has(extension)) return 'image';
  if (AUDIO_EXTENSIONS.has(extension)) return 'audio';
  return undefined;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function tooLarge(name: string, maxBytes: number, size?: number): MediaError {
  const actual = size === undefined ? 'larger than' : `${megabytes(size)}, over`;
  return new MediaError(`"${name}" is ${actual} the ${megabytes(maxBytes)} I can read.`, { code: 'too_large' });
}

/** Downloads a file from Discord's CDN, refusing (without reading on) anything over `maxBytes`. */
export async function download(url: string, name: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  let response;
  try {
    response = await request(url, { signal });
  } catch (error) {
    throw new HeraldError(`I couldn't download "${name}" from Discord.`, { code: 'download_failed', cause: error });
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new HeraldError(`I couldn't download "${name}" from Discord (HTTP ${response.statusCode}).`, { code: 'download_failed' });
  }
  const declared = Number(response.headers['content-length']);
  if (declared > maxBytes) {
    response.body.destroy();
    throw tooLarge(name, maxBytes, declared);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      response.body.destroy();
      throw tooLarge(name, maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** An attachment Discord already sized: refused before downloading when it is too large. */
export function downloadAttachment(attachment: Attachment, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  if (attachment.size > maxBytes) return Promise.reject(tooLarge(attachment.name, maxBytes, attachment.size));
  return download(attachment.url, attachment.name, maxBytes, signal);
}

export interface MessageMedia {
  images: IncomingImage[];
  audio: IncomingAudio[];
}

/** The images and recordings of a message, downloaded; a voice message's one recording is marked as such. */
export async function collectMedia(
  attachments: Iterable<Attachment>,
  options: { voiceMessage: boolean; maxBytes: number; signal?: AbortSignal },
): Promise<MessageMedia> {
  const wanted = [...attachments]
    .map((attachment) => ({ attachment, kind: mediaKind(attachment.name, attachment.contentType) }))
    .filter((entry): entry is { attachment: Attachment; kind: MediaKind } => entry.kind !== undefined);
  const oversized = wanted.find(({ attachment }) => attachment.size > options.maxBytes)?.attachment;
  if (oversized) throw tooLarge(oversized.name, options.maxBytes, oversized.size);
  const files = await Promise.all(
    wanted.map(async ({ attachment, kind }) => ({
      attachment,
      kind,
      data: await downloadAttachment(attachment, options.maxBytes, options.signal),
    })),
  );
  const media: MessageMedia = { images: [], audio: [] };
  for (const { attachment, kind, data } of files) {
    const mime = attachment.contentType ?? undefined;
    if (kind === 'image') media.images.push({ name: attachment.name, mime, data });
    else {
      const voice = options.voiceMessage;
      media.audio.push({ name: voice ? 'Voice message' : attachment.name, mime, data, isVoiceMessage: voice });
    }
  }
  return media;
}
