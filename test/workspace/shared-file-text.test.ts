import { describe, expect, it } from 'vitest';
import type { FileRequest } from '../../src/media/download.ts';
import { SharedFileReader } from '../../src/workspace/shared-file-text.ts';
import { pdfFile } from '../fixtures/documents/pdf-file.ts';

/** A file served from memory, counting its downloads. */
function served(name: string, body: Uint8Array | string, size?: number): FileRequest & { opened: number } {
  const file = {
    name,
    ...(size !== undefined && { size }),
    opened: 0,
    async open() {
      file.opened += 1;
      return new Response(typeof body === 'string' ? body : Buffer.from(body));
    },
  };
  return file;
}

const signal = new AbortController().signal;

describe('text of files shared in a channel', () => {
  it('reads text and code files, cut to a gist; names the others without downloading them', async () => {
    const notes = served('notes.md', `# Release\nMarch 14\n${'x'.repeat(3000)}`);
    const photo = served('photo.png', new Uint8Array([0x89, 0x50]));
    const archive = served('site.zip', 'PK');
    const text = await new SharedFileReader().textOf([{ request: notes }, { request: photo, mime: 'image/png' }, { request: archive }], signal);
    expect(text.startsWith('[file notes.md]\n# Release\nMarch 14\n')).toBe(true);
    expect(text).toContain('x […]\n[file photo.png]\n[file site.zip]');
    expect(text.length).toBeLessThan(2200);
    expect([notes.opened, photo.opened, archive.opened]).toEqual([1, 0, 0]);
  });

  it("reads a PDF's text layer: its first ten pages at most, cut to the same gist", async () => {
    const short = served('contract.pdf', pdfFile(Array.from({ length: 40 }, (_, p) => [`Page ${p + 1}: the vendor is Acme.`])));
    const long = served('report.pdf', pdfFile(Array.from({ length: 40 }, (_, p) => [`Section ${p + 1}.`, ...Array(3).fill('z'.repeat(80))])));
    const text = await new SharedFileReader().textOf([{ request: short, mime: 'application/pdf' }, { request: long }], signal);
    const [contract, report] = text.split('\n[file report.pdf');
    expect(contract!.startsWith('[file contract.pdf, 40 pages]\n--- page 1 ---\nPage 1: the vendor is Acme.\n\n--- page 2 ---\n')).toBe(true);
    expect(contract).toContain('Page 10: the vendor is Acme.');
    expect(contract).not.toContain('Page 11:');
    expect(report!.startsWith(', 40 pages]\n--- page 1 ---\nSection 1.\n')).toBe(true);
    expect(report!.endsWith(' […]')).toBe(true);
    expect(report!.length).toBeLessThan(2100);
  });

  it('reads a PDF too large for a text file but within the PDF cap; names a damaged PDF or a scan with the reason', async () => {
    const padded = Buffer.concat([pdfFile([['Minutes: ship on Friday.']]), Buffer.alloc(600 * 1024, 0x20)]);
    const big = served('minutes.pdf', padded);
    const broken = served('broken.pdf', pdfFile([['Hello']]).subarray(0, 80));
    const scan = served('scan.pdf', pdfFile([null, null]));
    const huge = served('manual.pdf', 'never read', 5 * 1024 * 1024);
    const text = await new SharedFileReader().textOf([{ request: big }, { request: broken }, { request: scan }, { request: huge }], signal);
    expect(text.split('\n')).toEqual([
      '[file minutes.pdf, 1 page]',
      'Minutes: ship on Friday.',
      `[file broken.pdf: not readable ("broken.pdf" looks damaged: I couldn't open it as a PDF.)]`,
      expect.stringMatching(/^\[file scan\.pdf: not readable \("scan\.pdf" has no text I can read: .*\)\]$/),
      expect.stringMatching(/^\[file manual\.pdf: not readable \(.*5 MB, over the 4 MB.*\)\]$/),
    ]);
    expect(huge.opened).toBe(0);
  });

  it('says why a file could not be read: binary, or over the cap before any download', async () => {
    const binary = served(
      'data.txt',
      new Uint8Array(256).map((_, i) => i),
    );
    const huge = served('huge.log', 'never read', 10 * 1024 * 1024);
    const text = await new SharedFileReader().textOf([{ request: binary }, { request: huge }], signal);
    expect(text).toMatch(/^\[file data\.txt: not readable \(.+\)\]\n\[file huge\.log: not readable \(.*10 MB.*\)\]$/);
    expect(huge.opened).toBe(0);
  });

  it('downloads at most ten files per read', async () => {
    const reader = new SharedFileReader();
    const files = Array.from({ length: 12 }, (_, i) => served(`f${i}.txt`, `file ${i}`));
    const text = await reader.textOf(
      files.map((request) => ({ request })),
      signal,
    );
    expect(files.map((f) => f.opened)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    expect(text).toContain('[file f11.txt: not read, too many files]');
  });
});
