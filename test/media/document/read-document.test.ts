import { describe, expect, it } from 'vitest';
import { MediaError } from '../../../src/errors.ts';
import { readDocument } from '../../../src/media/document/read-document.ts';
import { NoTextLayerError } from '../../../src/media/document/read-pdf.ts';
import { pdfFile } from '../../fixtures/documents/pdf-file.ts';
import { encryptedPdf } from './encrypted-pdf.ts';

function utf16be(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

async function refusal(name: string, bytes: Uint8Array): Promise<MediaError> {
  const error = await readDocument(name, bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaError);
  return error as MediaError;
}

describe('readDocument: text files', () => {
  it('reads UTF-8 (with or without a byte-order mark) and turns CRLF into LF', async () => {
    const source = 'def greet(name):\r\n    return f"你好, {name} 👋"\r\n';
    const expected = 'def greet(name):\n    return f"你好, {name} 👋"\n';
    expect(await readDocument('main.py', Buffer.from(source))).toEqual({ text: expected });
    expect(await readDocument('main.py', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(source)]))).toEqual({ text: expected });
  });

  it('reads UTF-16 little- and big-endian by the byte-order mark', async () => {
    const text = 'Name\tStadt\nJürgen\tKöln\n東京\t🗼\n';
    expect((await readDocument('export.tsv', Buffer.from(`\ufeff${text}`, 'utf16le'))).text).toBe(text);
    expect((await readDocument('export.tsv', utf16be(`\ufeff${text}`))).text).toBe(text);
  });

  it('reads UTF-16 without a byte-order mark instead of calling it binary', async () => {
    expect((await readDocument('out.log', Buffer.from('PS C:\\> dir\r\nok\r\n', 'utf16le'))).text).toBe('PS C:\\> dir\nok\n');
  });

  it('reads a CSV saved by Excel in windows-1252', async () => {
    // "Café;3,50 €" with é = 0xE9 and € = 0x80, quotes 0x93/0x94: not valid UTF-8.
    const bytes = Buffer.concat([
      Buffer.from('Item;Price;Note\r\nCaf', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from(';3,50 ', 'latin1'),
      Buffer.from([0x80, 0x3b, 0x93]),
      Buffer.from('best', 'latin1'),
      Buffer.from([0x94, 0x0d, 0x0a]),
    ]);
    expect((await readDocument('prices.csv', bytes)).text).toBe('Item;Price;Note\nCafé;3,50 €;“best”\n');
  });

  it('keeps terminal colour codes of a log as text', async () => {
    const log = '\x1b[32mINFO\x1b[0m started\n\x1b[31mERROR\x1b[0m disk full\n';
    expect((await readDocument('server.log', Buffer.from(log))).text).toBe(log);
  });

  it('refuses binary data with a message naming the file and what can be read', async () => {
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 37) & 255));
    const error = await refusal('data.bin', bytes);
    expect(error.message).toBe(`"data.bin" isn't a text file or a PDF, so I can't read it. I can read text, code and PDF files.`);
    expect(error.code).toBe('unsupported_format');
    const zip = Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1'), Buffer.alloc(64, 0x01)]);
    expect((await refusal('notes', zip)).message).toMatch(/^"notes" isn't a text file or a PDF/);
  });

  it('says an empty file is empty', async () => {
    expect((await refusal('empty.txt', new Uint8Array())).message).toBe('"empty.txt" is empty.');
    expect((await refusal('blank.md', Buffer.from('\r\n  \n\t'))).message).toBe('"blank.md" is empty.');
  });
});

describe('readDocument: PDFs', () => {
  it('reads every page of a PDF, each after a page marker', async () => {
    const pdf = pdfFile([['Quarterly report', 'Revenue rose (a lot)'], ['Costs fell'], ['Outlook: calm']]);
    expect(await readDocument('report.pdf', pdf)).toEqual({
      text: '--- page 1 ---\nQuarterly report\nRevenue rose (a lot)\n\n--- page 2 ---\nCosts fell\n\n--- page 3 ---\nOutlook: calm',
      pages: 3,
    });
  });

  it('stops reading pages once more text is in hand than could be sent, and still counts every page', async () => {
    const pages = Array.from({ length: 30 }, (_, p) => [`Page ${p + 1} says hello.`]);
    const read = await readDocument('long.pdf', pdfFile(pages), 50);
    expect(read.pages).toBe(30);
    expect(read.text).toContain('Page 2 says hello.');
    expect(read.text).toContain('Page 3 says hello.');
    expect(read.text).not.toContain('Page 4 says hello.');
  });

  it('reads no more pages than asked', async () => {
    const pages = Array.from({ length: 30 }, (_, p) => (p === 11 ? ['Page 12 at last.'] : null));
    const bytes = pdfFile(pages);
    const read = await readDocument('blank.pdf', bytes, Infinity, { maxPages: 12 });
    expect(read).toEqual({ text: expect.stringContaining('--- page 12 ---\nPage 12 at last.'), pages: 30 });
    await expect(readDocument('blank.pdf', bytes, Infinity, { maxPages: 11 })).rejects.toBeInstanceOf(NoTextLayerError);
  });

  it('gives up on a PDF at its time limit, even within one page, on a worker kept from an earlier file, then reads the next', async () => {
    expect(await readDocument('before.pdf', pdfFile([['Read first']]))).toEqual({ text: 'Read first', pages: 1 });
    const bytes = pdfFile([Array.from({ length: 300_000 }, (_, i) => `line ${i}`)]);
    await expect(readDocument('slow.pdf', bytes, Infinity, { workerTimeoutMs: 300 })).rejects.toMatchObject({
      code: 'too_large',
      message: 'Reading "slow.pdf" took longer than 0.3 s, so I gave up.',
    });
    expect(await readDocument('after.pdf', pdfFile([['Read after']]))).toEqual({ text: 'Read after', pages: 1 });
  });

  it('leaves the event loop free while it reads a long PDF', async () => {
    const pages = Array.from({ length: 40 }, (_, p) => Array.from({ length: 20 }, (_, l) => `Page ${p + 1}, line ${l + 1}.`));
    const bytes = pdfFile(pages);
    let turns = 0;
    let reading = true;
    const tick = (): void => {
      turns += 1;
      if (reading) setImmediate(tick);
    };
    setImmediate(tick);
    const read = await readDocument('long.pdf', bytes);
    reading = false;
    expect(read.pages).toBe(40);
    expect(turns).toBeGreaterThanOrEqual(40);
  });

  it("reads a one-page PDF without a marker, and leaves the caller's bytes intact", async () => {
    const pdf = pdfFile([['Just one page']]);
    expect(await readDocument('memo.pdf', pdf)).toEqual({ text: 'Just one page', pages: 1 });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('tells a PDF by its bytes, not its name', async () => {
    expect(await readDocument('scan-result.txt', pdfFile([['Inside a PDF']]))).toEqual({ text: 'Inside a PDF', pages: 1 });
    expect(await readDocument('notes.pdf', Buffer.from('plain text after all\n'))).toEqual({ text: 'plain text after all\n' });
  });

  it('marks a page without text among pages with text', async () => {
    const { text } = await readDocument('mixed.pdf', pdfFile([['Cover letter'], null]));
    expect(text).toBe('--- page 1 ---\nCover letter\n\n--- page 2 ---\n(no text on this page)');
  });

  it('says a PDF without any text looks like a scan', async () => {
    const error = await refusal('scan.pdf', pdfFile([null, null]));
    expect(error).toBeInstanceOf(NoTextLayerError);
    expect(error.message).toBe(
      '"scan.pdf" has no text I can read: it looks like a scan without a text layer. Send the pages as images and I can look at them.',
    );
  });

  it('says a damaged PDF is damaged', async () => {
    const whole = pdfFile([['Hello']]);
    expect((await refusal('broken.pdf', whole.subarray(0, 80))).message).toBe(`"broken.pdf" looks damaged: I couldn't open it as a PDF.`);
    expect((await refusal('junk.pdf', Buffer.from('%PDF-1.7\nnot really a pdf\n'))).code).toBe('corrupt');
  });

  it('says a password-protected PDF needs its password removed', async () => {
    const pdf = encryptedPdf('Salaries 2026', 'hunter2');
    const { extractText, getDocumentProxy } = await import('unpdf');
    const opened = await getDocumentProxy(new Uint8Array(pdf), { verbosity: 0, password: 'hunter2' });
    expect((await extractText(opened, { mergePages: true })).text).toBe('Salaries 2026');
    await opened.loadingTask.destroy();

    const error = await refusal('salaries.pdf', pdf);
    expect(error.message).toBe(`"salaries.pdf" is password-protected, so I can't read it. Send a copy without the password.`);
  });
});
