import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { IncomingAudio, IncomingDocument, IncomingImage, IncomingMessage } from '../../src/conversation/types.ts';
import { attachmentKind } from '../../src/media/attachment-kind.ts';

export type Attachments = Pick<IncomingMessage, 'images' | 'audio' | 'documents'>;

/**
 * Local files attached with --file, sorted as a chat platform's attachments are: images, recordings and
 * documents by attachmentKind; a file of a kind Herald cannot read goes unread, to be reported as skipped.
 */
export async function attachFiles(paths: readonly string[]): Promise<Attachments> {
  const images: IncomingImage[] = [];
  const audio: IncomingAudio[] = [];
  const documents: IncomingDocument[] = [];
  for (const path of paths) {
    const name = basename(path);
    const { size } = await stat(path);
    const kind = attachmentKind(name, undefined, size);
    if (kind === 'unsupported') {
      documents.push({ name });
      continue;
    }
    const data = await readFile(path);
    if (kind === 'image') images.push({ name, data });
    else if (kind === 'audio') audio.push({ name, data, isVoiceMessage: false });
    else documents.push({ name, data });
  }
  return {
    ...(images.length > 0 && { images }),
    ...(audio.length > 0 && { audio }),
    ...(documents.length > 0 && { documents }),
  };
}
