import { afterEach, describe, expect, it, vi } from 'vitest';
import { pdfFile } from '../../fixtures/documents/pdf-file.ts';

afterEach(() => {
  vi.doUnmock('unpdf');
});

describe('readDocument when unpdf cannot be loaded', () => {
  it('names the package for a PDF instead of calling it damaged, and still reads text files', async () => {
    vi.resetModules();
    vi.doMock('unpdf', () => {
      throw new Error("Cannot find package 'unpdf'");
    });
    const { readDocument } = await import('../../../src/media/document/read-document.ts');
    await expect(readDocument('report.pdf', pdfFile([['Hello']]))).rejects.toThrow(/^could not load the package "unpdf" \([^\n]+\); reinstall/);
    await expect(readDocument('notes.txt', Buffer.from('still fine\n'))).resolves.toEqual({ text: 'still fine\n' });
  });
});
