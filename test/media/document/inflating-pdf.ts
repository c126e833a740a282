import { deflateSync } from 'node:zlib';
import { assemblePdf } from '../../fixtures/documents/pdf-file.ts';

/**
 * A one-page PDF whose page draws `unit` repeated to `megabytes` MB between `open` and `close`, stored deflated:
 * a file of tens of kilobytes whose one page pdf.js must inflate and parse whole, without a break inside it.
 */
export function inflatingPagePdf(open: string, unit: string, megabytes: number, close: string): Buffer {
  const body = Buffer.alloc(Math.floor((megabytes * 1e6) / unit.length) * unit.length, unit, 'latin1');
  const content = deflateSync(Buffer.concat([Buffer.from(open, 'latin1'), body, Buffer.from(close, 'latin1')]), { level: 1 });
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>'),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`), content, Buffer.from('\nendstream')]),
  ];
  return assemblePdf(objects);
}

/** A page whose one `TJ` array holds `megabytes`/2 million numbers: pdf.js builds them all before it draws. */
export function heapBombPdf(megabytes = 60): Buffer {
  return inflatingPagePdf('BT /F1 12 Tf 72 720 Td [', '1 ', megabytes, '] TJ ET');
}

/** A page of `megabytes` MB of one-letter text operators: seconds of pdf.js within one page. */
export function slowPagePdf(megabytes = 100): Buffer {
  return inflatingPagePdf('BT /F1 12 Tf 72 720 Td\n', '(A) Tj\n', megabytes, 'ET');
}
