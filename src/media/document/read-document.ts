import { MediaError } from '../../errors.ts';
import { MEDIA_BUDGET, withMediaBudget } from '../media-budget.ts';
import { decodeText } from './decode-text.ts';
import { readPdf, type PdfReadOptions } from './read-pdf.ts';

export interface DocumentText {
  text: string;
  /** A PDF's page count; absent for a text file. */
  pages?: number;
}

const PDF_SIGNATURE = '%PDF-';
/** pdf.js holds a document's objects and one page's text at a time. */
const PDF_TEXT_WEIGHT = MEDIA_BUDGET / 4;

/**
 * The text of an attached file, told apart by its bytes (names and declared types are often wrong): a PDF's
 * text layer, else the file decoded as text. An empty, binary or unreadable file is a MediaError whose
 * message names it. A PDF's pages are read only until `maxChars` are in hand, and within `pdf`'s page count and
 * signal.
 */
export async function readDocument(name: string, bytes: Uint8Array, maxChars = Infinity, pdf: PdfReadOptions = {}): Promise<DocumentText> {
  if (isPdf(bytes)) return withMediaBudget(PDF_TEXT_WEIGHT, () => readPdf(name, bytes, maxChars, pdf));
  const text = decodeText(name, bytes);
  if (text.trim() === '') throw new MediaError(`"${name}" is empty.`, { code: 'empty' });
  return { text };
}

function isPdf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= PDF_SIGNATURE.length && Buffer.from(bytes.buffer, bytes.byteOffset, PDF_SIGNATURE.length).toString('latin1') === PDF_SIGNATURE
  );
}
