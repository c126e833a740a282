import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const fixture = (name: string): Buffer => readFileSync(join(import.meta.dirname, '../../fixtures/images', name));

/** prepareImage as loaded when `name` cannot be, as when the package is missing from node_modules. */
async function prepareImageWithout(name: string) {
  vi.resetModules();
  vi.doMock(name, () => {
    throw new Error(`Cannot find package '${name}'`);
  });
  return (await import('../../../src/media/image/prepare-image.ts')).prepareImage;
}

afterEach(() => {
  vi.doUnmock('sharp');
  vi.doUnmock('heic-decode');
});

describe('prepareImage when an image package cannot be loaded', () => {
  it('names sharp instead of calling the image damaged', async () => {
    const prepareImage = await prepareImageWithout('sharp');
    await expect(prepareImage(fixture('marker.png'))).rejects.toThrow(/^could not load the package "sharp" \([^\n]+\); reinstall/);
  });

  it('names heic-decode for an HEVC photo, and still prepares every other image', async () => {
    const prepareImage = await prepareImageWithout('heic-decode');
    await expect(prepareImage(fixture('marker.heic'))).rejects.toThrow(/^could not load the package "heic-decode" \(/);
    await expect(prepareImage(fixture('marker.png'))).resolves.toMatchObject({ mime: 'image/png', converted: false });
  });
});
