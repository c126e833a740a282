/**
 * Reads the ISO base media boxes of a HEIF/AVIF file far enough to learn its brands and the stored size
 * of its primary image (the `ispe` property associated with the `pitm` item), without decoding anything.
 */

export interface HeifInfo {
  brands: string[];
  width?: number;
  height?: number;
}

interface Box {
  type: string;
  start: number;
  end: number;
  body: number;
}

const ascii = new TextDecoder('latin1');

function readBox(view: DataView, offset: number, limit: number): Box | undefined {
  if (offset + 8 > limit) return undefined;
  const size32 = view.getUint32(offset);
  const type = ascii.decode(new Uint8Array(view.buffer, view.byteOffset + offset + 4, 4));
  let size = size32;
  let body = offset + 8;
  if (size32 === 1) {
    if (offset + 16 > limit) return undefined;
    size = Number(view.getBigUint64(offset + 8));
    body = offset + 16;
  } else if (size32 === 0) {
    size = limit - offset;
  }
  if (size < body - offset || offset + size > limit) return undefined;
  return { type, start: offset, end: offset + size, body };
}

function children(view: DataView, from: number, to: number): Box[] {
  const boxes: Box[] = [];
  let offset = from;
  for (let box = readBox(view, offset, to); box; box = readBox(view, offset, to)) {
    boxes.push(box);
    offset = box.end;
  }
  return boxes;
}

/** Brands of the leading `ftyp` box (major first), or undefined when the file does not start with one. */
function readFtypBrands(bytes: Uint8Array): string[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ftyp = readBox(view, 0, bytes.byteLength);
  if (ftyp?.type !== 'ftyp' || ftyp.end - ftyp.body < 8) return undefined;
  const brands = [ascii.decode(bytes.subarray(ftyp.body, ftyp.body + 4))];
  for (let at = ftyp.body + 8; at + 4 <= ftyp.end; at += 4) {
    brands.push(ascii.decode(bytes.subarray(at, at + 4)));
  }
  return brands;
}

function primaryItemId(view: DataView, pitm: Box): number | undefined {
  const version = view.getUint8(pitm.body);
  const at = pitm.body + 4;
  if (version === 0) return at + 2 <= pitm.end ? view.getUint16(at) : undefined;
  return at + 4 <= pitm.end ? view.getUint32(at) : undefined;
}

/** 1-based indexes into `ipco` of the properties associated with `itemId`. */
function propertyIndexes(view: DataView, ipma: Box, itemId: number): number[] {
  const version = view.getUint8(ipma.body);
  const wideIndex = (view.getUint32(ipma.body) & 1) === 1;
  let at = ipma.body + 4;
  if (at + 4 > ipma.end) return [];
  const entries = view.getUint32(at);
  at += 4;
  for (let e = 0; e < entries; e++) {
    const idSize = version < 1 ? 2 : 4;
    if (at + idSize + 1 > ipma.end) return [];
    const id = version < 1 ? view.getUint16(at) : view.getUint32(at);
    at += idSize;
    const count = view.getUint8(at);
    at += 1;
    const indexSize = wideIndex ? 2 : 1;
    if (at + count * indexSize > ipma.end) return [];
    if (id === itemId) {
      const indexes: number[] = [];
      for (let i = 0; i < count; i++) {
        indexes.push(wideIndex ? view.getUint16(at + i * 2) & 0x7fff : view.getUint8(at + i) & 0x7f);
      }
      return indexes;
    }
    at += count * indexSize;
  }
  return [];
}

export function readHeifInfo(bytes: Uint8Array): HeifInfo | undefined {
  const brands = readFtypBrands(bytes);
  if (!brands) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const meta = children(view, 0, bytes.byteLength).find((b) => b.type === 'meta');
  if (!meta) return { brands };
  const inMeta = children(view, meta.body + 4, meta.end);
  const pitm = inMeta.find((b) => b.type === 'pitm');
  const iprp = inMeta.find((b) => b.type === 'iprp');
  if (!pitm || !iprp) return { brands };
  const inIprp = children(view, iprp.body, iprp.end);
  const ipco = inIprp.find((b) => b.type === 'ipco');
  const ipma = inIprp.find((b) => b.type === 'ipma');
  const itemId = primaryItemId(view, pitm);
  if (!ipco || !ipma || itemId === undefined) return { brands };
  const properties = children(view, ipco.body, ipco.end);
  for (const index of propertyIndexes(view, ipma, itemId)) {
    const property = properties[index - 1];
    if (property?.type === 'ispe' && property.body + 12 <= property.end) {
      return { brands, width: view.getUint32(property.body + 4), height: view.getUint32(property.body + 8) };
    }
  }
  return { brands };
}
