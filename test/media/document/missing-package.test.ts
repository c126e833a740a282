import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeError, PackageLoadError } from '../../../src/errors.ts';
import { describeWorkerFailure, rebuildWorkerFailure } from '../../../src/media/media-worker-failure.ts';

afterEach(() => {
  vi.doUnmock('unpdf');
});

describe('readDocument when unpdf cannot be loaded', () => {
  it('still reads text files', async () => {
    vi.resetModules();
    vi.doMock('unpdf', () => {
      throw new Error("Cannot find package 'unpdf'");
    });
    const { readDocument } = await import('../../../src/media/document/read-document.ts');
    await expect(readDocument('notes.txt', Buffer.from('still fine\n'))).resolves.toEqual({ text: 'still fine\n' });
  });

  it('names the package to the operator when the media worker cannot load it, and gives a chat user the usual apology', () => {
    const onWorker = new PackageLoadError('unpdf', new Error("Cannot find package 'unpdf' imported from /app/src/load-package.ts\n    at x"));
    const rebuilt = rebuildWorkerFailure(structuredClone(describeWorkerFailure(onWorker)));
    expect(rebuilt).toBeInstanceOf(PackageLoadError);
    expect(rebuilt.message).toBe(onWorker.message);
    expect(rebuilt.message).toMatch(/^could not load the package "unpdf" \(Cannot find package 'unpdf' [^\n]+\); reinstall/);
    expect(describeError(rebuilt)).toEqual({ kind: 'internal', message: 'Something went wrong while answering; please try again.' });
  });
});
