import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toBase64Block, toDataUrl } from '../../../src/media/image/image-parts.ts';
import { prepareImage } from '../../../src/media/image/prepare-image.ts';

const fixture = (name: string): Buffer => readFileSync(join(import.meta.dirname, '../../fixtures/images', name));

describe('service image parts', () => {
  it('a data URL names the real type of the converted image and carries its bytes', async () => {
    const prepared = await prepareImage(fixture('marker.heic'));
    const url = toDataUrl(prepared);
    const match = /^data:(image\/jpeg);base64,([A-Za-z0-9+/]+=*)$/.exec(url);
    expect(match?.[1]).toBe('image/jpeg');
    expect(Buffer.from(match?.[2] ?? '', 'base64').equals(prepared.data)).toBe(true);
  });

  it('a messages-format block carries bare Base64 and the media type', async () => {
    const input = fixture('marker.webp');
    const block = toBase64Block(await prepareImage(input));
    expect(block).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/webp', data: input.toString('base64') },
    });
  });
});
