import { MediaError } from '../errors.ts';
import { ResultStream } from '../service/result-stream.ts';
import type { ChatRequest, ChatStream, ContentPart, MessagesBlock, MessagesRequest } from '../service/types.ts';
import type { CapabilityDeps } from './deps.ts';
import { IMAGE_BASE64_LIMIT, checkBase64Size, dataUrl } from './media-limits.ts';
import { MESSAGES_MAX_TOKENS } from './chat.ts';
import { imageBlock } from './messages-format.ts';

export type ImageSource = { mime: string; data: Buffer } | { url: string };

export interface DescribeInput {
  images: ImageSource[];
  /** The user's question about the images; a general description is asked for when absent. */
  prompt?: string;
  /** Default true; false makes one non-streamed request whose deltas all arrive at the end. */
  stream?: boolean;
  system?: string;
  /** Default: config THINKING. */
  thinking?: boolean;
  /** Default: config VISION_MODEL. */
  model?: string;
  maxTokens?: number;
  signal?: AbortSignal;
}

/** The formats the service reads (spec §8); others must be converted first (src/media/image). */
export const IMAGE_MIMES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp'];

export function defaultImagePrompt(count: number): string {
  return count === 1
    ? 'Describe this image: what it shows, any text in it, and anything notable.'
    : `Describe these ${count} images: what each shows, any text in them, and anything notable.`;
}

function imageUrl(image: ImageSource, position: number, count: number): string {
  const what = count === 1 ? 'The image' : `Image ${position}`;
  if ('url' in image) return image.url;
  if (!IMAGE_MIMES.includes(image.mime)) {
    throw new MediaError(`${what} is ${image.mime}; the AI service reads JPEG, PNG, GIF, WebP and BMP.`, { code: 'unsupported_format' });
  }
  checkBase64Size(what, image.data.length, IMAGE_BASE64_LIMIT);
  return dataUrl(image.mime, image.data);
}

/**
 * Asks VISION_MODEL about one or more images (bytes become Base64 data URLs, URLs are passed as
 * they are). Input problems throw a MediaError at once, before any request.
 */
export function describe(deps: CapabilityDeps, input: DescribeInput): ChatStream {
  const { client, config } = deps;
  if (input.images.length === 0) throw new MediaError('There is no image to describe.', { code: 'empty' });
  const urls = input.images.map((image, i) => imageUrl(image, i + 1, input.images.length));
  const question = input.prompt?.trim() || defaultImagePrompt(urls.length);
  const model = input.model ?? config.models.vision;
  const thinking = input.thinking ?? config.thinking;
  const stream = input.stream ?? true;

  if (config.api.format === 'messages') {
    const content: MessagesBlock[] = [...urls.map(imageBlock), { type: 'text', text: question }];
    const request: MessagesRequest = { model, max_tokens: input.maxTokens ?? MESSAGES_MAX_TOKENS, messages: [{ role: 'user', content }] };
    if (input.system) request.system = input.system;
    if (!thinking) request.thinking = { type: 'disabled' };
    if (stream) return client.messagesStream(request, { signal: input.signal, capability: 'describe' });
    return new ResultStream((signal) => client.messages(request, { signal, capability: 'describe' }), input.signal);
  }

  const content: ContentPart[] = [...urls.map((url): ContentPart => ({ type: 'image_url', image_url: { url } })), { type: 'text', text: question }];
  const request: ChatRequest = { model, messages: [{ role: 'user', content }] };
  if (input.system) request.messages.unshift({ role: 'system', content: input.system });
  if (!thinking) request.thinking = { type: 'disabled' };
  if (input.maxTokens !== undefined) request.max_completion_tokens = input.maxTokens;
  if (stream) return client.chatStream(request, { signal: input.signal, capability: 'describe' });
  return new ResultStream((signal) => client.chat(request, { signal, capability: 'describe' }), input.signal);
}
