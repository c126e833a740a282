/**
 * Files shared with a message: images are described, voice clips and audio files transcribed, text, code and PDFs
 * read. Their bytes are downloaded here with the bot token and handed to the core; a private Slack URL is never
 * passed on. A file Herald cannot read is not downloaded: the core gets its name only, to tell the user it was skipped.
 */
import { attachmentKind, type AttachmentKind } from '../../src/media/attachment-kind.ts';
import type { IncomingAudio, IncomingDocument, IncomingImage } from '../../src/conversation/types.ts';
import { downloadFiles } from '../../src/media/download.ts';
import { downloadSlackFile, slackFileRequest, type DownloadOptions } from './file-download.ts';
import type { SlackApi } from './slack-api.ts';

export interface SlackFile {
  id: string;
  name?: string;
  title?: string;
  mimetype?: string;
  /** Slack's own type: the language of code and snippets (`python`, `shell` …), `binary` when it knows none. */
  filetype?: string;
  /** `slack_audio` for a clip recorded in Slack. */
  subtype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** `check_file_info` when the event carries only a stub (files.info has the rest). */
  file_access?: string;
  /** `hosted`, `snippet`, `external` (a link to another service), `tombstone` once deleted … */
  mode?: string;
  is_external?: boolean;
}

export type FileKind = AttachmentKind | 'voice';

/** Files that are no longer there to read: deleted, or hidden by the workspace's plan. */
const GONE_MODES = new Set(['tombstone', 'hidden_by_limit']);
const GENERIC_MIME_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);
/** Slack's file types for text and code, for a file whose declared type says nothing. */
const TEXT_FILETYPES = new Set([
  'text',
  'markdown',
  'csv',
  'tsv',
  'json',
  'xml',
  'yaml',
  'html',
  'css',
  'sass',
  'diff',
  'latex',
  'sql',
  'shell',
  'powershell',
  'python',
  'javascript',
  'typescript',
  'java',
  'kotlin',
  'scala',
  'groovy',
  'c',
  'cpp',
  'csharp',
  'objc',
  'swift',
  'go',
  'rust',
  'ruby',
  'php',
  'perl',
  'lua',
  'r',
  'matlab',
  'dart',
  'haskell',
  'erlang',
  'elixir',
  'clojure',
  'ocaml',
  'fsharp',
  'lisp',
  'scheme',
  'dockerfile',
  'vb',
  'vbscript',
  'verilog',
  'puppet',
]);

/** The declared type, or the one Slack's filetype implies where the declared one is missing or says nothing. */
function declaredType(file: SlackFile): string | undefined {
  if (!GENERIC_MIME_TYPES.has(file.mimetype?.trim().toLowerCase() ?? '')) return file.mimetype;
  if (file.mode === 'snippet' || TEXT_FILETYPES.has(file.filetype ?? '')) return 'text/plain';
  if (file.filetype === 'pdf') return 'application/pdf';
  return file.mimetype;
}

export function fileKind(file: SlackFile): FileKind {
  if (file.subtype === 'slack_audio') return 'voice';
  // A remote file (Google Drive, Dropbox …) is a link whose url_private is the other service's, never fetched.
  if (file.is_external || file.mode === 'external') return 'unsupported';
  return attachmentKind(fileName(file), declaredType(file), file.size);
}

/** Whether a file is still there to read (not deleted, not hidden by the workspace's plan). */
export function isPresent(file: SlackFile): boolean {
  return !GONE_MODES.has(file.mode ?? '');
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

/** A file (its URLs looked up first when the event had only a stub) and how to download it with the bot token. */
async function withDownload(api: SlackApi, stub: SlackFile): Promise<{ file: SlackFile; url: string; options: DownloadOptions }> {
  const file = await complete(api, stub);
  const url = file.url_private_download ?? file.url_private;
  if (!url) throw new Error(`file ${file.id} has no download URL`);
  const options = {
    botToken: api.botToken,
    extraTokenHosts: [new URL(api.apiUrl).host],
    htmlExpected: /^(text\/html|application\/xhtml\+xml)\b/i.test(file.mimetype ?? ''),
  };
  return { file, url, options };
}

export async function fetchFileBytes(api: SlackApi, stub: SlackFile): Promise<Buffer> {
  const { file, url, options } = await withDownload(api, stub);
  return downloadSlackFile(url, fileName(file), { ...options, ...(file.size !== undefined && { size: file.size }) });
}

export interface MessageFiles {
  images: IncomingImage[];
  audio: IncomingAudio[];
  documents: IncomingDocument[];
}

/**
 * Downloads the images, recordings and documents among `files`; a file of a kind Herald cannot read becomes a
 * document without data, and a deleted one is left out. A stub (a file from another organization) is looked up first,
 * as only files.info says what it is.
 */
export async function readMessageFiles(api: SlackApi, files: readonly SlackFile[], signal?: AbortSignal): Promise<MessageFiles> {
  const present = files.filter(isPresent);
  const described = (await Promise.all(present.map((f) => complete(api, f)))).map((file) => ({ file, kind: fileKind(file) }));
  const readable = described.filter(({ kind }) => kind !== 'unsupported');
  const requests = await Promise.all(
    readable.map(async ({ file }) => {
      const { url, options } = await withDownload(api, file);
      return slackFileRequest(url, fileName(file), options, file.size);
    }),
  );
  const downloaded = await downloadFiles(requests, { ...(signal && { signal }) });
  const dataOf = new Map(readable.map(({ file }, i) => [file, downloaded[i]!.data]));
  const read = described.map(({ file, kind }) => ({ file, kind, data: dataOf.get(file) }));
  const result: MessageFiles = { images: [], audio: [], documents: [] };
  for (const { file, kind, data } of read) {
    const name = fileName(file);
    const mime = file.mimetype ? { mime: file.mimetype } : {};
    const type = declaredType(file);
    if (data === undefined) result.documents.push({ name, ...(type && { mime: type }) });
    else if (kind === 'image') result.images.push({ name, ...mime, data });
    else if (kind === 'audio' || kind === 'voice') result.audio.push({ name, ...mime, data, isVoiceMessage: kind === 'voice' });
    else result.documents.push({ name, ...(type && { mime: type }), data });
  }
  return result;
}
