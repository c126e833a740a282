// The TLS presentation language as MLS (RFC 9420 §2.1) uses it: big-endian integers, and vectors prefixed by a
// variable-length integer (1, 2 or 4 bytes, top two bits of the first byte giving the size).

export function varint(value: number): Buffer {
  if (value < 0x40) return Buffer.from([value]);
  if (value < 0x4000) return Buffer.from([0x40 | (value >> 8), value & 0xff]);
  if (value < 0x40000000) {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE((0x80000000 | value) >>> 0);
    return bytes;
  }
  throw new RangeError(`vector too long for MLS: ${value} bytes`);
}

export const vector = (bytes: Buffer): Buffer => Buffer.concat([varint(bytes.length), bytes]);

export function u8(value: number): Buffer {
  return Buffer.from([value]);
}

export function u16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
}

export function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

export function u64(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(value);
  return bytes;
}

export class MlsReader {
  offset = 0;
  private readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  u8(): number {
    return this.take(1).readUInt8();
  }

  u16(): number {
    return this.take(2).readUInt16BE();
  }

  skip(length: number): void {
    this.take(length);
  }

  vector(): Buffer {
    const first = this.u8();
    const size = first >> 6;
    let length = first & 0x3f;
    if (size === 1) length = (length << 8) | this.u8();
    else if (size === 2) length = ((length << 24) | this.take(3).readUIntBE(0, 3)) >>> 0;
    else if (size === 3) throw new Error('invalid MLS varint prefix');
    return this.take(length);
  }

  rest(): Buffer {
    return this.bytes.subarray(this.offset);
  }

  private take(length: number): Buffer {
    if (this.offset + length > this.bytes.length) throw new Error('truncated MLS structure');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
}
