import { attachmentKind } from '../media/attachment-kind.ts';
import { decodeText } from '../media/document/decode-text.ts';
import { downloadFiles, type DownloadLimits, type FileRequest } from '../media/download.ts';

/** A file shared with a message, as the platform offers it for download. */
export interface SharedFile {
  request: FileRequest;
  mime?: string | null;
}

/** Far below a question's own attachments: a history read may meet many files and only needs their gist. */
const SHARED_FILE_LIMITS: DownloadLimits = { fileBytes: 256 * 1024, messageBytes: 512 * 1024, fileTimeoutMs: 10_000, concurrency: 3 };
/** Files one history read downloads at most; later ones are named only. */
const MAX_FILES_PER_READ = 10;
const MAX_CHARS_PER_FILE = 2_000;

/**
 * The text of readable text and code files shared in the messages of one read, within the download caps and a
 * count of files per read. A file that cannot be read (too large, binary, gone) is named with the reason.
 */
export class SharedFileReader {
  #downloads = 0;

  async textOf(files: readonly SharedFile[], signal: AbortSignal): Promise<string> {
    const parts: string[] = [];
    for (const file of files) parts.push(await this.#read(file, signal));
    return parts.join('\n');
  }

  async #read(file: SharedFile, signal: AbortSignal): Promise<string> {
    const { name, size } = file.request;
    if (attachmentKind(name, file.mime, size) !== 'document' || /\.pdf$/i.test(name) || file.mime === 'application/pdf') return `[file ${name}]`;
    if (this.#downloads >= MAX_FILES_PER_READ) return `[file ${name}: not read, too many files]`;
    this.#downloads += 1;
    try {
      const [downloaded] = await downloadFiles([file.request], { limits: SHARED_FILE_LIMITS, signal });
      const text = decodeText(name, downloaded!.data);
      const shown = text.length > MAX_CHARS_PER_FILE ? `${text.slice(0, MAX_CHARS_PER_FILE)} […]` : text;
      return `[file ${name}]\n${shown}`;
    } catch (error) {
      signal.throwIfAborted();
      return `[file ${name}: not readable (${(error as Error).message})]`;
    }
  }
}
