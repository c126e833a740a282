import type { ChatMessage, MessagesBlock, MessagesMessage, MessagesRequest } from '../service/types.ts';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An image URL as a Messages-format block: a data URL becomes a base64 source (without its prefix). */
export function imageBlock(url: string): MessagesBlock {
  const match = DATA_URL.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1]!, data: match[2]! } };
  return { type: 'image', source: { type: 'url', url } };
}

/** Whether a conversation can be sent in the Messages format (no audio, no tool calls or results). */
export function fitsMessagesFormat(messages: readonly ChatMessage[]): boolean {
  return messages.every(
    (m) =>
      m.role !== 'tool' &&
      !(m.tool_calls && m.tool_calls.length > 0) &&
      !(Array.isArray(m.content) && m.content.some((p) => p.type === 'input_audio')),
  );
}

function blocks(content: ChatMessage['content']): MessagesBlock[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const out: MessagesBlock[] = [];
  for (const part of content) {
    if (part.type === 'text') out.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url') out.push(imageBlock(part.image_url.url));
  }
  return out;
}

/**
 * A chat-completions conversation in the Messages format: system messages become the top-level
 * `system` string, and consecutive messages of one role are merged (the format wants them alternating).
 */
export function toMessagesRequest(model: string, messages: readonly ChatMessage[], maxTokens: number, system?: string): MessagesRequest {
  const systemParts = system ? [system] : [];
  const out: MessagesMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      const text =
        typeof message.content === 'string'
          ? message.content
          : blocks(message.content)
              .map((b) => (b.type === 'text' ? b.text : ''))
              .join('\n');
      if (text) systemParts.push(text);
      continue;
    }
    if (message.role === 'tool') continue;
    const content = blocks(message.content);
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === message.role) (last.content as MessagesBlock[]).push(...content);
    else out.push({ role: message.role, content });
  }
  const request: MessagesRequest = { model, max_tokens: maxTokens, messages: out };
  if (systemParts.length > 0) request.system = systemParts.join('\n\n');
  return request;
}
