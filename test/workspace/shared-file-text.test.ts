import { describe, expect, it } from 'vitest';
import type { FileRequest } from '../../src/media/download.ts';
import { SharedFileReader } from '../../src/workspace/shared-file-text.ts';

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
    const pdf = served('spec.pdf', '%PDF-1.7');
    const text = await new SharedFileReader().textOf([{ request: notes }, { request: photo, mime: 'image/png' }, { request: pdf }], signal);
    expect(text.startsWith('[file notes.md]\n# Release\nMarch 14\n')).toBe(true);
    expect(text).toContain('x […]\n[file photo.png]\n[file spec.pdf]');
    expect(text.length).toBeLessThan(2200);
    expect([notes.opened, photo.opened, pdf.opened]).toEqual([1, 0, 0]);
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
