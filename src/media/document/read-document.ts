import { MediaError } from '../../errors.ts';
import { MEDIA_BUDGET, withMediaBudget } from '../media-budget.ts';
import { runMediaTask, type WorkerLimit } from '../media-worker.ts';
import { decodeText } from './decode-text.ts';

export interface DocumentText {
  text: string;
  /** A PDF's page count; absent for a text file. */
  pages?: number;
}

const PDF_SIGNATURE = '%PDF-';
/** pdf.js holds a document's objects and one page's text at a time. */
const PDF_TEXT_WEIGHT = MEDIA_BUDGET / 4;
/**
 * Longest a PDF is read unless its reader says otherwise (a question's files): the whole text of a 300-page report
 * takes about a second on a fresh worker, one page that inflates to a hundred megabytes of drawing ten or more.
 */
export const PDF_TEXT_TIMEOUT_MS = 20_000;

/** How much of a PDF to read, and for how long. */
export interface PdfReadLimits {
  /** Pages read at most: a file of many blank pages is not read to its end. */
  maxPages?: number;
  /** Default PDF_TEXT_TIMEOUT_MS. */
  workerTimeoutMs?: number;
}

/**
 * The text of an attached file, told apart by its bytes (names and declared types are often wrong): a PDF's
 * text layer, else the file decoded as text. An empty, binary or unreadable file is a MediaError whose
 * message names it; a scan is a NoTextLayerError. A PDF's pages are read only until `maxChars` are in hand and
 * within `pdf`'s limits, on a media worker ended at the time limit or when its heap is full: pdf.js cannot stop
 * within a page, and one page can hold the thread for seconds.
 */
export async function readDocument(name: string, bytes: Uint8Array, maxChars = Infinity, pdf: PdfReadLimits = {}): Promise<DocumentText> {
  if (isPdf(bytes)) return withMediaBudget(PDF_TEXT_WEIGHT, () => readPdfText(name, bytes, maxChars, pdf));
  const text = decodeText(name, bytes);
  if (text.trim() === '') throw new MediaError(`"${name}" is empty.`, { code: 'empty' });
  return { text };
}

function readPdfText(name: string, bytes: Uint8Array, maxChars: number, limits: PdfReadLimits): Promise<DocumentText> {
  const { maxPages = Infinity, workerTimeoutMs = PDF_TEXT_TIMEOUT_MS } = limits;
  const refusal = (limit: WorkerLimit) =>
    limit === 'time'
      ? new MediaError(`Reading "${name}" took longer than ${workerTimeoutMs / 1000} s, so I gave up.`, { code: 'too_large' })
      : new MediaError(`"${name}" takes more memory to read than I allow, so I gave up.`, { code: 'too_large' });
  return runMediaTask({ kind: 'pdf-text', name, bytes, maxChars, maxPages }, workerTimeoutMs, refusal);
}

function isPdf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= PDF_SIGNATURE.length && Buffer.from(bytes.buffer, bytes.byteOffset, PDF_SIGNATURE.length).toString('latin1') === PDF_SIGNATURE
  );
}
