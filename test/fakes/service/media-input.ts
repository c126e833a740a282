import { createHash } from 'node:crypto';
import { invalid } from './api-error.ts';
import { decodeBase64, splitDataUrl } from './data-url.ts';
import { imageInfo } from './image-dims.ts';
import { mp3Seconds } from './mp3-duration.ts';
import { wavInfo } from './wav.ts';

const megabyte = 1024 * 1024;
const imageBase64Limit = 50 * megabyte;
const audioBase64Limit = 10 * megabyte;
const imageMimes = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp'];
const audioMimes = ['audio/wav', 'audio/mpeg', 'audio/mp3'];
/** Size assumed for a public URL image, which the emulator never downloads. */
const remoteImageSide = 1024;

export interface ImageInput {
  /** `data` (Base64), `fetched` (a loopback URL the emulator downloaded) or `remote` (assumed size). */
  source: 'data' | 'fetched' | 'remote';
  mime: string;
  width: number;
  height: number;
  url?: string;
}

export interface AudioInput {
  format: 'wav' | 'mp3';
  mime: string;
  seconds: number;
  bytes: Buffer;
  sha256: string;
}

function checkImageBytes(bytes: Buffer, declared: string | undefined, what: string): { mime: string; width: number; height: number } {
  const info = imageInfo(bytes);
  if (!info || info.width < 1 || info.height < 1) {
    throw invalid('invalid_image', `${what} is not a JPEG, PNG, GIF, WebP or BMP image.`);
  }
  if (declared !== undefined && declared !== info.mime) {
    throw invalid('invalid_image', `${what} is declared as ${declared} but the data is ${info.mime}.`);
  }
  return info;
}

function checkImageMime(mime: string, what: string): void {
  if (!imageMimes.includes(mime)) {
    throw invalid('unsupported_image_format', `${what}: MIME type ${mime} is not supported; use one of ${imageMimes.join(', ')}.`);
  }
}

function checkImageBase64(mime: string, data: string, what: string): ImageInput {
  checkImageMime(mime, what);
  if (data.length > imageBase64Limit) {
    throw invalid('image_too_large', `${what}: the Base64 string is ${data.length} characters; the limit is 50 MB (${imageBase64Limit}).`);
  }
  return { source: 'data', ...checkImageBytes(decodeBase64(data, what), mime, what) };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

async function imageFromUrl(url: string, what: string): Promise<ImageInput> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid('invalid_image_url', `${what}: "${url.slice(0, 80)}" is not a URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid('invalid_image_url', `${what}: only http(s) URLs and data URLs are accepted.`);
  }
  if (!isLoopback(parsed.hostname)) {
    return { source: 'remote', mime: 'image/unknown', width: remoteImageSide, height: remoteImageSide, url };
  }
  let bytes: Buffer;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`status ${response.status}`);
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (error) {
    throw invalid('image_download_failed', `${what}: could not download ${url} (${(error as Error).message}).`);
  }
  if (bytes.length > imageBase64Limit) {
    throw invalid('image_too_large', `${what}: the image at ${url} is larger than 50 MB.`);
  }
  return { source: 'fetched', url, ...checkImageBytes(bytes, undefined, what) };
}

/** An `image_url.url` of a chat request: a data URL or an http(s) URL. */
export async function chatImage(url: string, what: string): Promise<ImageInput> {
  if (url.startsWith('data:')) {
    const { mime, data } = splitDataUrl(url, what);
    return checkImageBase64(mime, data, what);
  }
  return imageFromUrl(url, what);
}

/** An image block source of a messages request. */
export async function messagesImage(source: Record<string, unknown>, what: string): Promise<ImageInput> {
  if (source.type === 'url' && typeof source.url === 'string') return imageFromUrl(source.url, what);
  if (source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    if (source.data.startsWith('data:')) {
      throw invalid('invalid_base64', `${what}: source.data must be pure Base64 without a data: prefix.`);
    }
    return checkImageBase64(source.media_type, source.data, what);
  }
  throw invalid('invalid_image', `${what}: source must be {type:'url', url} or {type:'base64', media_type, data}.`);
}

/** An `input_audio.data` data URL of a speech-recognition request. */
export function chatAudio(dataUrl: string, what: string): AudioInput {
  const { mime, data } = splitDataUrl(dataUrl, what);
  if (!audioMimes.includes(mime)) {
    throw invalid('unsupported_audio_format', `${what}: MIME type ${mime} is not supported; use audio/wav, audio/mpeg or audio/mp3.`);
  }
  if (data.length > audioBase64Limit) {
    throw invalid('audio_too_large', `${what}: the Base64 string is ${data.length} characters; the limit is 10 MB (${audioBase64Limit}).`);
  }
  const bytes = decodeBase64(data, what);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (mime === 'audio/wav') {
    const info = wavInfo(bytes);
    if (!info) throw invalid('invalid_audio', `${what} is declared as audio/wav but is not a WAV file.`);
    return { format: 'wav', mime, seconds: info.seconds, bytes, sha256 };
  }
  const seconds = mp3Seconds(bytes);
  if (seconds === null) throw invalid('invalid_audio', `${what} is declared as ${mime} but is not an MP3 file.`);
  return { format: 'mp3', mime, seconds, bytes, sha256 };
}
