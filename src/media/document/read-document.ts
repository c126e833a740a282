import { MediaError } from '../../errors.ts';
import { MEDIA_BUDGET, withMediaBudget } from '../media-budget.ts';
import { runMediaTask } from '../media-worker.ts';
import { decodeText } from './decode-text.ts';
import { readPdf } from './read-pdf.ts';

export interface DocumentText {
  text: string;
  /** A PDF's page count; absent for a text file. */
  pages?: number;
}

const PDF_SIGNATURE = '%PDF-';
/** pdf.js holds a document's objects and one page's text at a time. */
const PDF_TEXT_WEIGHT = MEDIA_BUDGET / 4;

/** How much of a PDF to read, and where. */
export interface PdfReadLimits {
  /** Pages read at most: a file of many blank pages is not read to its end. */
  maxPages?: number;
  /**
   * Read on a media worker, ended after this long with its heap bounded: pdf.js cannot stop within a page, and a
   * page can take seconds.
   */
  workerTimeoutMs?: number;
}

/**
 * The text of an attached file, told apart by its bytes (names and declared types are often wrong): a PDF's
 * text layer, else the file decoded as text. An empty, binary or unreadable file is a MediaError whose
 * message names it. A PDF's pages are read only until `maxChars` are in hand and within `pdf`'s limits.
 */
export async function readDocument(name: string, bytes: Uint8Array, maxChars = Infinity, pdf: PdfReadLimits = {}): Promise<DocumentText> {
  if (isPdf(bytes)) return withMediaBudget(PDF_TEXT_WEIGHT, () => readPdfText(name, bytes, maxChars, pdf));
  const text = decodeText(name, bytes);
  if (text.trim() === '') throw new MediaError(`"${name}" is empty.`, { code: 'empty' });
  return { text };
}

function readPdfText(name: string, bytes: Uint8Array, maxChars: number, limits: PdfReadLimits): Promise<DocumentText> {
  const { maxPages = Infinity, workerTimeoutMs } = limits;
  if (workerTimeoutMs === undefined) return readPdf(name, bytes, maxChars, maxPages);
  const tooSlow = () => new MediaError(`Reading "${name}" took longer than ${workerTimeoutMs / 1000} s, so I gave up.`, { code: 'too_large' });
  return runMediaTask({ kind: 'pdf-text', name, bytes, maxChars, maxPages }, workerTimeoutMs, tooSlow);
}

function isPdf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= PDF_SIGNATURE.length && Buffer.from(bytes.buffer, bytes.byteOffset, PDF_SIGNATURE.length).toString('latin1') === PDF_SIGNATURE
  );
}
