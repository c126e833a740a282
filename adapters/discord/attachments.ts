import type { Attachment } from 'discord.js';
import type { IncomingAudio, IncomingDocument, IncomingImage } from '../../src/conversation/types.ts';
import { attachmentKind } from '../../src/media/attachment-kind.ts';
import { DOWNLOAD_LIMITS, DownloadError, downloadFile, downloadFiles, type FileRequest } from '../../src/media/download.ts';

/** Largest attachment Herald downloads; the media pipeline shrinks what it keeps. */
export const MAX_DOWNLOAD_BYTES = DOWNLOAD_LIMITS.fileBytes;

/** An attachment as a download from Discord's CDN, which needs no credentials; Discord's size is checked first. */
export function cdnRequest(attachment: Pick<Attachment, 'name' | 'url' | 'size'>): FileRequest {
  return {
    name: attachment.name,
    size: attachment.size,
    async open(signal) {
      const response = await fetch(attachment.url, { signal });
      if (!response.ok) {
        await response.body?.cancel();
        throw new DownloadError(`I couldn't download "${attachment.name}" from Discord (HTTP ${response.status}).`, { code: 'download_failed' });
      }
      return response;
    },
  };
}

/** One attachment (a command's option), within the same limits as a message's. */
export async function downloadAttachment(
  attachment: Pick<Attachment, 'name' | 'url' | 'size'>,
  options: { maxBytes?: number } = {},
): Promise<Buffer> {
  const limits = { ...DOWNLOAD_LIMITS, ...(options.maxBytes !== undefined && { fileBytes: options.maxBytes }) };
  return (await downloadFile(cdnRequest(attachment), { limits })).data;
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
  options: { voiceMessage: boolean; maxBytes?: number; signal?: AbortSignal },
): Promise<MessageMedia> {
  const entries = [...attachments].map((attachment) => ({
    attachment,
    kind: attachmentKind(attachment.name, attachment.contentType, attachment.size),
  }));
  const readable = entries.filter(({ kind }) => kind !== 'unsupported');
  const limits = { ...DOWNLOAD_LIMITS, ...(options.maxBytes !== undefined && { fileBytes: options.maxBytes }) };
  const downloaded = await downloadFiles(
    readable.map(({ attachment }) => cdnRequest(attachment)),
    { limits, ...(options.signal && { signal: options.signal }) },
  );
  const dataOf = new Map(readable.map(({ attachment }, i) => [attachment, downloaded[i]!.data]));
  const files = entries.map(({ attachment, kind }) => ({ attachment, kind, data: dataOf.get(attachment) }));
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
