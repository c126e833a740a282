import { MediaError } from '../../errors.ts';

/** What Herald reads as documents, for messages about files it cannot. */
export const READABLE_DOCUMENTS = 'text, code and PDF files';

/** Share of control characters above which a file is taken for binary data rather than text. */
const MAX_CONTROL_SHARE = 0.01;
/** Bytes looked at to tell UTF-16 without a byte-order mark from binary data. */
const UTF16_SNIFF_BYTES = 4096;

// C0 and C1 control characters other than tab, line feed, vertical tab, form feed, carriage return and escape
// (terminal colours in logs).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's job.
const CONTROL = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]/g;

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/**
 * A text file's bytes as text: UTF-8, or UTF-16 by its byte-order mark (or, without one, by the zero bytes
 * of mostly-ASCII UTF-16); bytes that are not valid UTF-8 are read as windows-1252, what Excel and older
 * Windows programs write. Line ends become `\n`. Binary data is refused with a message naming the file.
 */
export function decodeText(name: string, bytes: Uint8Array): string {
  const { encoding, offset } = detectEncoding(bytes);
  const body = bytes.subarray(offset);
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    if (encoding !== 'utf-8') throw notText(name);
    text = new TextDecoder('windows-1252').decode(body);
  }
  if (looksBinary(text)) throw notText(name);
  return text.replace(/\r\n?/g, '\n');
}

function detectEncoding(bytes: Uint8Array): { encoding: Encoding; offset: number } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', offset: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', offset: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', offset: 2 };
  return { encoding: unmarkedUtf16(bytes) ?? 'utf-8', offset: 0 };
}

/** UTF-16 text of mostly ASCII has a zero in every other byte, on the same side; binary data has them scattered. */
function unmarkedUtf16(bytes: Uint8Array): Encoding | undefined {
  const length = Math.min(bytes.length, UTF16_SNIFF_BYTES) & ~1;
  if (length === 0) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < length; i += 2) {
    if (bytes[i] === 0) evenZeros += 1;
    if (bytes[i + 1] === 0) oddZeros += 1;
  }
  const pairs = length / 2;
  if (oddZeros >= pairs * 0.9 && evenZeros === 0) return 'utf-16le';
  if (evenZeros >= pairs * 0.9 && oddZeros === 0) return 'utf-16be';
  return undefined;
}

function looksBinary(text: string): boolean {
  if (text.includes('\0')) return true;
  const controls = text.match(CONTROL)?.length ?? 0;
  return controls > text.length * MAX_CONTROL_SHARE;
}

function notText(name: string): MediaError {
  return new MediaError(`"${name}" isn't a text file or a PDF, so I can't read it. I can read ${READABLE_DOCUMENTS}.`, {
    code: 'unsupported_format',
  });
}
