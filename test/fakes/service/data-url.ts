import { invalid } from './api-error.ts';

const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checks a pure Base64 string (no prefix, no whitespace) and decodes it. */
export function decodeBase64(data: string, what: string): Buffer {
  if (data.length % 4 !== 0 || !base64Text.test(data)) {
    throw invalid('invalid_base64', `${what} is not a valid pure Base64 string.`);
  }
  return Buffer.from(data, 'base64');
}

/** Splits `data:<MIME>;base64,<DATA>` without decoding, so size limits can be checked first. */
export function splitDataUrl(url: string, what: string): { mime: string; data: string } {
  const comma = url.indexOf(',');
  const match = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64$/i.exec(url.slice(0, comma));
  if (comma < 0 || !match) {
    throw invalid('invalid_data_url', `${what} must be a data URL of the form data:<MIME_TYPE>;base64,<BASE64>.`);
  }
  return { mime: match[1]!.toLowerCase(), data: url.slice(comma + 1) };
}
