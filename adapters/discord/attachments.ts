import type { Attachment } from 'discord.js';
import { request } from 'undici';
import type { IncomingAudio, IncomingDocument, IncomingImage } from '../../src/conversation/types.ts';
import { HeraldError, MediaError } from '../../src/errors.ts';
import { attachmentKind } from '../../src/media/attachment-kind.ts';

/** Largest attachment Herald downloads; the media pipeline shrinks what it keeps. */
export const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;

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
  /** Files to read, and (without data, never downloaded) files of a kind Herald cannot read. */
  documents: IncomingDocument[];
}

/**
 * The attachments of a message for the core: images, recordings and documents downloaded (a voice message's
 * one recording marked as such), other files named only so the user hears they were skipped.
 */
export async function collectMedia(
  attachments: Iterable<Attachment>,
  options: { voiceMessage: boolean; maxBytes: number; signal?: AbortSignal },
): Promise<MessageMedia> {
  const entries = [...attachments].map((attachment) => ({
    attachment,
    kind: attachmentKind(attachment.name, attachment.contentType, attachment.size),
  }));
  const oversized = entries.find(({ attachment, kind }) => kind !== 'unsupported' && attachment.size > options.maxBytes)?.attachment;
  if (oversized) throw tooLarge(oversized.name, options.maxBytes, oversized.size);
  const files = await Promise.all(
    entries.map(async ({ attachment, kind }) => ({
      attachment,
      kind,
      data: kind === 'unsupported' ? undefined : await downloadAttachment(attachment, options.maxBytes, options.signal),
    })),
  );
  const media: MessageMedia = { images: [], audio: [], documents: [] };
  for (const { attachment, kind, data } of files) {
    const mime = attachment.contentType ?? undefined;
    if (data === undefined) {
      media.documents.push({ name: attachment.name, mime });
    } else if (kind === 'image') {
      media.images.push({ name: attachment.name, mime, data });
    } else if (kind === 'audio') {
      const voice = options.voiceMessage;
      media.audio.push({ name: voice ? 'Voice message' : attachment.name, mime, data, isVoiceMessage: voice });
    } else {
      media.documents.push({ name: attachment.name, mime, data });
    }
  }
  return media;
}
