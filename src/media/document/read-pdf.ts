import { MediaError } from '../../errors.ts';
import { loadPackage } from '../../load-package.ts';

/** A PDF whose pages have no text to extract: a scan, whose pictures the vision model can read instead. */
export class NoTextLayerError extends MediaError {
  readonly fileName: string;

  constructor(name: string) {
    super(`"${name}" has no text I can read: it looks like a scan without a text layer. Send the pages as images and I can look at them.`, {
      code: 'empty',
    });
    this.fileName = name;
  }
}

export interface PdfText {
  /** The pages' text, each page after a `--- page N ---` line when there are several. */
  text: string;
  pages: number;
}

/**
 * The text layer of a PDF, page by page, through pdf.js (the `unpdf` package, loaded with the first PDF), on a
 * media worker (see readDocument): reading stops once `maxChars` are in hand (pages past that could never be sent)
 * or `maxPages` are read. A password-protected, damaged or text-less (scanned) file is refused with a message
 * naming it.
 */
export async function readPdf(name: string, bytes: Uint8Array, maxChars = Infinity, maxPages = Infinity): Promise<PdfText> {
  const { getDocumentProxy } = await loadPackage('unpdf', () => import('unpdf'));
  let pdf;
  try {
    // A copy: pdf.js detaches the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw openFailure(name, error);
  }
  const pages: string[] = [];
  try {
    let chars = 0;
    for (let number = 1; number <= Math.min(pdf.numPages, maxPages) && chars < maxChars; number += 1) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      const text = cleanPage(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      page.cleanup();
      pages.push(text);
      chars += text.length;
    }
  } catch (error) {
    throw damaged(name, error);
  } finally {
    await pdf.loadingTask.destroy();
  }
  if (pages.every((page) => page === '')) throw new NoTextLayerError(name);
  const text = pdf.numPages === 1 ? pages[0]! : pages.map((page, i) => `${pageMarker(i + 1)}\n${page || '(no text on this page)'}`).join('\n\n');
  return { text, pages: pdf.numPages };
}

/** The line that starts page `n` of a PDF's text. */
function pageMarker(n: number): string {
  return `--- page ${n} ---`;
}

/** The last page whose marker a (possibly cut) PDF text holds: 1 when it has none. */
export function lastPageIn(text: string): number {
  let last = 1;
  for (const match of text.matchAll(/^--- page (\d+) ---$/gm)) last = Number(match[1]);
  return last;
}

function cleanPage(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function openFailure(name: string, error: unknown): MediaError {
  if (error instanceof Error && error.name === 'PasswordException') {
    return new MediaError(`"${name}" is password-protected, so I can't read it. Send a copy without the password.`, {
      code: 'unsupported_format',
      cause: error,
    });
  }
  return damaged(name, error);
}

function damaged(name: string, cause: unknown): MediaError {
  return new MediaError(`"${name}" looks damaged: I couldn't open it as a PDF.`, { code: 'corrupt', cause });
}
