/**
 * Whether a TIFF's first image declares more pixels than its stored data could possibly hold: libtiff fills
 * missing strips with black, so such a file would become a large black picture instead of a damaged one.
 */

const COMPRESSION_NONE = 1;
const COMPRESSION_PACKBITS = 32773;
// No TIFF codec packs more than this many bits of picture into one bit of data (LZW on uniform rows, CCITT G4
// on blank pages stay below it); PackBits stores at most 128 bytes in two.
const MOST_BITS_PER_STORED_BIT = 8192;
const PACKBITS_RATIO = 64;

const TYPE_SIZE: Record<number, number> = { 3: 2, 4: 4, 16: 8 };

function values(view: DataView, entry: number, little: boolean): number[] {
  const type = view.getUint16(entry + 2, little);
  const count = view.getUint32(entry + 4, little);
  const size = TYPE_SIZE[type];
  if (!size || count === 0 || count > 1 << 20) return [];
  const inline = size * count <= 4;
  const at = inline ? entry + 8 : view.getUint32(entry + 8, little);
  if (at + size * count > view.byteLength) return [];
  const read = (i: number) =>
    size === 2 ? view.getUint16(at + i * 2, little) : size === 4 ? view.getUint32(at + i * 4, little) : Number(view.getBigUint64(at + i * 8, little));
  return Array.from({ length: count }, (_, i) => read(i));
}

export function tiffDataTooShort(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = bytes[0] === 0x49;
  if (view.getUint16(2, little) !== 42) return false;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > bytes.length) return false;
  const tags = new Map<number, number[]>();
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > bytes.length) break;
    tags.set(view.getUint16(entry, little), values(view, entry, little));
  }
  const width = tags.get(256)?.[0];
  const height = tags.get(257)?.[0];
  const counts = tags.get(279) ?? tags.get(325);
  if (!width || !height || !counts?.length) return false;
  const bitsPerSample = (tags.get(258) ?? [1]).reduce((sum, bits) => sum + bits, 0);
  const samples = tags.get(277)?.[0] ?? 1;
  const pictureBits = width * height * Math.max(bitsPerSample, samples);
  const storedBits = counts.reduce((sum, count) => sum + count, 0) * 8;
  const compression = tags.get(259)?.[0] ?? COMPRESSION_NONE;
  const ratio = compression === COMPRESSION_NONE ? 1 : compression === COMPRESSION_PACKBITS ? PACKBITS_RATIO : MOST_BITS_PER_STORED_BIT;
  return storedBits * ratio < pictureBits;
}
