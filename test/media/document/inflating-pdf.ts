import { deflateSync } from 'node:zlib';

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
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]!.length;
  const offsets = objects.map((body, index) => {
    const offset = length;
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    length += object.length;
    return offset;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A page whose one `TJ` array holds `megabytes`/2 million numbers: pdf.js builds them all before it draws. */
export function heapBombPdf(megabytes = 60): Buffer {
  return inflatingPagePdf('BT /F1 12 Tf 72 720 Td [', '1 ', megabytes, '] TJ ET');
}

/** A page of `megabytes` MB of one-letter text operators: seconds of pdf.js within one page. */
export function slowPagePdf(megabytes = 100): Buffer {
  return inflatingPagePdf('BT /F1 12 Tf 72 720 Td\n', '(A) Tj\n', megabytes, 'ET');
}
