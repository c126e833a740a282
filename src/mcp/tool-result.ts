import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HeraldError } from '../errors.ts';
import type { Usage } from '../service/types.ts';
import { MAX_RESULT_CHARS } from '../tools/registry.ts';

/** Describes one picture a tool returned, as text for the model (the vision model, in the product), and what it cost. */
export type DescribeImage = (image: { mime: string; data: Buffer }, signal: AbortSignal) => Promise<{ text: string; usage: Usage }>;

/** Where a result is turned into text: the reply's signal, and its usage meter for the pictures described. */
export interface ResultContext {
  signal: AbortSignal;
  chargeUsage?(usage: Usage): void;
}

const MAX_IMAGES = 3;
const CUT_NOTE = '\n[… the rest of the result was cut]';
/** What the model reads of one result at most, the note of a cut included. */
const MAX_TEXT = MAX_RESULT_CHARS - CUT_NOTE.length;
/** Largest picture sent to the vision model, as Base64 characters (checked before decoding). */
const MAX_IMAGE_BASE64 = 8 * 1024 * 1024;

/**
 * A tool result as the text the model reads: text parts as they are, pictures described by the vision model,
 * links and embedded resources named, structured content as JSON when there is nothing else. Text beyond what the
 * model will be shown is dropped here already. A result flagged `isError` throws, so the model reads it as an error.
 */
export async function resultText(result: CallToolResult, describeImage: DescribeImage | undefined, context: ResultContext): Promise<string> {
  const parts: string[] = [];
  let length = 0;
  let images = 0;
  const push = (text: string) => {
    if (length > MAX_TEXT) return;
    const kept = text.slice(0, MAX_TEXT + 1 - length);
    parts.push(kept);
    length += kept.length;
  };
  for (const item of Array.isArray(result.content) ? result.content : []) {
    if (item.type === 'text') push(item.text);
    else if (item.type === 'image') {
      images += 1;
      push(await imageText(item.data, item.mimeType, images, describeImage, context));
    } else if (item.type === 'audio') push(`[an audio clip (${item.mimeType}), not shown]`);
    else if (item.type === 'resource_link') push(`[resource: ${item.name} ${item.uri}]`);
    else if (item.type === 'resource') {
      const resource = item.resource;
      push('text' in resource && typeof resource.text === 'string' ? resource.text : `[binary resource ${resource.uri}, not shown]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  const cut = text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}${CUT_NOTE}` : text;
  if (result.isError) throw new HeraldError(cut.trim() === '' ? 'the tool reported an error' : cut, { code: 'mcp_tool_error' });
  return cut === '' ? '(the tool returned nothing)' : cut;
}

async function imageText(
  data: string,
  mime: string,
  position: number,
  describeImage: DescribeImage | undefined,
  context: ResultContext,
): Promise<string> {
  if (position > MAX_IMAGES) return `[image ${position}, not described: at most ${MAX_IMAGES} per result]`;
  if (!describeImage) return `[image ${position} (${mime}), not described here]`;
  if (data.length > MAX_IMAGE_BASE64) return `[image ${position}, not described: larger than ${MAX_IMAGE_BASE64 / 1024 / 1024} MB of Base64]`;
  try {
    const description = await describeImage({ mime, data: Buffer.from(data, 'base64') }, context.signal);
    context.chargeUsage?.(description.usage);
    return `[image ${position}, as described by the vision model: ${description.text}]`;
  } catch (error) {
    if (context.signal.aborted) throw error;
    return `[image ${position}, could not be described: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}]`;
  }
}
