import { createHash } from 'node:crypto';
import { assemblePdf } from '../../fixtures/documents/pdf-file.ts';

// The password padding of the PDF standard security handler (ISO 32000-1, 7.6.3.3).
const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
const PERMISSIONS = -44;
const FILE_ID = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');

/**
 * A one-page PDF encrypted by the standard security handler (revision 2, 40-bit RC4) with a user password:
 * readers must ask for the password before they can show `line`.
 */
export function encryptedPdf(line: string, userPassword: string): Buffer {
  const owner = rc4(md5(padded(`${userPassword}-owner`)).subarray(0, 5), padded(userPassword));
  const key = md5(Buffer.concat([padded(userPassword), owner, int32le(PERMISSIONS), FILE_ID])).subarray(0, 5);
  const user = rc4(key, PADDING);

  const content = Buffer.from(`BT /F1 12 Tf 72 720 Td (${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`, 'latin1');
  const sealed = rc4(md5(Buffer.concat([key, Buffer.from([4, 0, 0, 0, 0])])).subarray(0, 10), content);
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [5 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.concat([Buffer.from(`<< /Length ${sealed.length} >>\nstream\n`), sealed, Buffer.from('\nendstream')]),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>'),
    Buffer.from(`<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P ${PERMISSIONS} >>`),
  ];

  const id = `<${FILE_ID.toString('hex')}>`;
  return assemblePdf(objects, ` /Encrypt 6 0 R /ID [${id} ${id}]`);
}

function padded(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'latin1'), PADDING]).subarray(0, 32);
}

function md5(data: Buffer): Buffer {
  return createHash('md5').update(data).digest();
}

function int32le(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeInt32LE(value);
  return out;
}

function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i += 1) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n += 1) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}
