import { attachmentKind, isDeclaredPdf } from '../media/attachment-kind.ts';
import { readDocument } from '../media/document/read-document.ts';
import { downloadFiles, type DownloadLimits, type FileRequest } from '../media/download.ts';

/** A file shared with a message, as the platform offers it for download. */
export interface SharedFile {
  request: FileRequest;
  mime?: string | null;
}

const KB = 1024;

/** Far below a question's own attachments: a history read may meet many files and only needs their gist. */
const SHARED_FILE_LIMITS: DownloadLimits = { fileBytes: 256 * KB, messageBytes: 512 * KB, fileTimeoutMs: 10_000, concurrency: 3 };
/** A PDF's bytes are mostly fonts and pictures, so the same gist needs a larger file. */
const SHARED_PDF_LIMITS: DownloadLimits = { ...SHARED_FILE_LIMITS, fileBytes: 4096 * KB, messageBytes: 4096 * KB };
/** Files one history read downloads at most; later ones are named only. */
const MAX_FILES_PER_READ = 10;
const MAX_CHARS_PER_FILE = 2_000;
/** A PDF's first pages hold its gist; a file of blank pages is not read to its end. */
const MAX_PDF_PAGES = 10;
const PDF_READ_TIMEOUT_MS = 5_000;

/**
 * The text of readable text, code and PDF files (a PDF's text layer) shared in the messages of one read, within
 * the download caps and a count of files per read; a PDF is read on a media worker, within a count of pages and a
 * time limit. A file that cannot be read (too large, binary, damaged, a scan, too slow, gone) is named with the
 * reason.
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
    if (attachmentKind(name, file.mime, size) !== 'document') return `[file ${name}]`;
    if (this.#downloads >= MAX_FILES_PER_READ) return `[file ${name}: not read, too many files]`;
    this.#downloads += 1;
    const limits = isDeclaredPdf(name, file.mime) ? SHARED_PDF_LIMITS : SHARED_FILE_LIMITS;
    try {
      const [downloaded] = await downloadFiles([file.request], { limits, signal });
      const pdf = { maxPages: MAX_PDF_PAGES, workerTimeoutMs: PDF_READ_TIMEOUT_MS };
      const { text, pages } = await readDocument(name, downloaded!.data, MAX_CHARS_PER_FILE, pdf);
      const shown = text.length > MAX_CHARS_PER_FILE ? `${text.slice(0, MAX_CHARS_PER_FILE)} […]` : text;
      return `[file ${name}${pages === undefined ? '' : `, ${pages} page${pages === 1 ? '' : 's'}`}]\n${shown}`;
    } catch (error) {
      signal.throwIfAborted();
      return `[file ${name}: not readable (${(error as Error).message})]`;
    }
  }
}
