import type { PreparedImage } from './prepare-image.ts';

/** `data:<mime>;base64,<data>` for an `image_url` part of a chat-completions message. */
export function toDataUrl(prepared: PreparedImage): string {
  return `data:${prepared.mime};base64,${prepared.data.toString('base64')}`;
}

export interface Base64ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: PreparedImage['mime']; data: string };
}

/** A messages-format image block; its Base64 string carries no data-URL prefix. */
export function toBase64Block(prepared: PreparedImage): Base64ImageBlock {
  return { type: 'image', source: { type: 'base64', media_type: prepared.mime, data: prepared.data.toString('base64') } };
}
