/** Minimal reader for EBML, the binary layout of Matroska and WebM. */

export const UNKNOWN_SIZE = -1;

export interface EbmlElement {
  id: number;
  /** Offset of the element's payload. */
  start: number;
  /** Payload length, or UNKNOWN_SIZE for a live-streamed master element that runs until its parent ends. */
  size: number;
}

/** Reads the element header at `at`, or undefined when it does not fit in the bytes. */
export function readElementHeader(bytes: Uint8Array, at: number): EbmlElement | undefined {
  const id = readVint(bytes, at, true);
  if (!id) return undefined;
  const size = readVint(bytes, at + id.length, false);
  if (!size) return undefined;
  return { id: id.value, start: at + id.length + size.length, size: size.value };
}

/**
 * A variable-length integer: the count of leading zero bits of the first byte gives its length.
 * IDs keep their marker bit; sizes drop it, and a size of all ones means "unknown".
 */
export function readVint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  if (at >= bytes.length) return undefined;
  const first = bytes[at]!;
  if (first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const b = bytes[at + i]!;
    value = value * 256 + b;
    allOnes &&= b === 0xff;
  }
  if (!keepMarker && allOnes) return { value: UNKNOWN_SIZE, length };
  return { value, length };
}

export function readUint(bytes: Uint8Array, start: number, size: number): number {
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + bytes[start + i]!;
  return value;
}

export function readInt(bytes: Uint8Array, start: number, size: number): number {
  if (size === 0) return 0;
  const unsigned = readUint(bytes, start, size);
  return bytes[start]! & 0x80 ? unsigned - 2 ** (8 * size) : unsigned;
}

export function readFloat(bytes: Uint8Array, start: number, size: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, size);
  if (size === 4) return view.getFloat32(0);
  if (size === 8) return view.getFloat64(0);
  return 0;
}

export function readString(bytes: Uint8Array, start: number, size: number): string {
  let end = start + size;
  while (end > start && bytes[end - 1] === 0) end--;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}
