/**
 * Files shared with a message: images are described, voice clips and audio files transcribed. Their bytes are
 * downloaded here with the bot token and handed to the core; a private Slack URL is never passed on.
 */
import type { IncomingAudio, IncomingImage } from '../../src/conversation/types.ts';
import { downloadSlackFile } from './file-download.ts';
import type { SlackApi } from './slack-api.ts';

export interface SlackFile {
  id: string;
  name?: string;
  title?: string;
  mimetype?: string;
  filetype?: string;
  /** `slack_audio` for a clip recorded in Slack. */
  subtype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** `check_file_info` when the event carries only a stub (files.info has the rest). */
  file_access?: string;
  mode?: string;
}

/** Largest file Herald downloads: the service takes far less, but a recording is shrunk before it is sent. */
export const MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024;

export type FileKind = 'image' | 'voice' | 'audio';

export function fileKind(file: SlackFile): FileKind | undefined {
  if (file.subtype === 'slack_audio') return 'voice';
  const mime = file.mimetype ?? '';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  return undefined;
}

export function fileName(file: SlackFile): string {
  return file.name ?? file.title ?? file.id;
}

/** The file object with its URLs, fetched with files.info when the event only had a stub. */
async function complete(api: SlackApi, file: SlackFile): Promise<SlackFile> {
  if (file.url_private_download || file.url_private) return file;
  const info = await api.call('files.info', undefined, (c) => c.files.info({ file: file.id }));
  return { ...file, ...(info.file as SlackFile) };
}

export async function fetchFileBytes(api: SlackApi, stub: SlackFile, signal?: AbortSignal): Promise<{ file: SlackFile; data: Buffer }> {
  const file = await complete(api, stub);
  const url = file.url_private_download ?? file.url_private;
  if (!url) throw new Error(`file ${file.id} has no download URL`);
  const data = await downloadSlackFile(url, fileName(file), {
    botToken: api.botToken,
    extraTokenHosts: [new URL(api.apiUrl).host],
    maxBytes: MAX_DOWNLOAD_BYTES,
    ...(signal && { signal }),
  });
  return { file, data };
}

/** Downloads the images and recordings among `files`; other files are left out. */
export async function readMessageFiles(
  api: SlackApi,
  files: readonly SlackFile[],
  signal?: AbortSignal,
): Promise<{ images: IncomingImage[]; audio: IncomingAudio[] }> {
  const wanted = files.filter((f) => fileKind(f) !== undefined && f.mode !== 'tombstone');
  const fetched = await Promise.all(wanted.map((f) => fetchFileBytes(api, f, signal)));
  const images: IncomingImage[] = [];
  const audio: IncomingAudio[] = [];
  for (const { file, data } of fetched) {
    const kind = fileKind(file);
    const name = fileName(file);
    if (kind === 'image') images.push({ name, ...(file.mimetype && { mime: file.mimetype }), data });
    else audio.push({ name, ...(file.mimetype && { mime: file.mimetype }), data, isVoiceMessage: kind === 'voice' });
  }
  return { images, audio };
}
