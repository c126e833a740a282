import { invalid } from './api-error.ts';
import { findModel, isObject, optionalPositiveInt, stopList } from './chat-request.ts';
import type { Turn } from './chat-request.ts';
import { messagesImage } from './media-input.ts';
import { idsWith } from './models.ts';
import type { ModelSpec } from './models.ts';

export interface MessagesRequest {
  model: ModelSpec;
  turns: Turn[];
  stream: boolean;
  thinking: boolean;
  maxTokens: number;
  stop: string[];
}

function emptyTurn(role: Turn['role'], text = ''): Turn {
  return { role, text, images: [], audios: [], toolCalls: [] };
}

async function parseBlocks(content: unknown, where: string, model: ModelSpec, models: ModelSpec[], turn: Turn): Promise<void> {
  if (typeof content === 'string') {
    turn.text = content;
    return;
  }
  if (!Array.isArray(content)) throw invalid('invalid_value', `${where}.content must be a string or an array of blocks.`);
  for (const [j, block] of content.entries()) {
    const at = `${where}.content[${j}]`;
    if (!isObject(block)) throw invalid('invalid_value', `${at} must be an object.`);
    if (block.type === 'text' && typeof block.text === 'string') {
      turn.text += turn.text === '' ? block.text : `\n${block.text}`;
    } else if (block.type === 'image') {
      if (!model.vision)
        throw invalid('unsupported_capability', `Model ${model.id} does not accept image input; use one of ${idsWith(models, 'vision')}.`);
      if (!isObject(block.source)) throw invalid('invalid_value', `${at}.source is required.`);
      turn.images.push(await messagesImage(block.source, `${at} (image)`));
    } else {
      throw invalid('invalid_value', `${at} must be a text block or an image block.`);
    }
  }
}

function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === 'string') return system;
  if (Array.isArray(system) && system.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')) {
    return system.map((b) => (b as { text: string }).text).join('\n');
  }
  throw invalid('invalid_value', '"system" must be a string.');
}

/** Validates an Anthropic-style messages body (spec §2.6, ERRATA 4). */
export async function parseMessagesRequest(body: unknown, models: ModelSpec[]): Promise<MessagesRequest> {
  if (!isObject(body)) throw invalid('invalid_request', 'The request body must be a JSON object.');
  const model = findModel(models, body.model);
  if (!model.chat) throw invalid('unsupported_capability', `Model ${model.id} is not available on the messages endpoint.`);
  const maxTokens = optionalPositiveInt(body, 'max_tokens');
  if (maxTokens === undefined) throw invalid('missing_field', 'The "max_tokens" field is required.');
  if (Array.isArray(body.tools) && body.tools.some((t) => isObject(t) && typeof t.type === 'string' && t.type.startsWith('web_search'))) {
    throw invalid('unsupported_capability', 'Web search is not supported on the messages endpoint; use POST /v1/chat/completions.');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw invalid('missing_field', 'The "messages" field is required and must be a non-empty array.');
  }
  const turns: Turn[] = [];
  const system = systemText(body.system);
  if (system !== undefined) turns.push(emptyTurn('system', system));
  for (const [i, message] of body.messages.entries()) {
    const where = `messages[${i}]`;
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      throw invalid('invalid_value', `${where}.role must be user or assistant.`);
    }
    const turn = emptyTurn(message.role);
    await parseBlocks(message.content, where, model, models, turn);
    turns.push(turn);
  }
  const thinkingType = isObject(body.thinking) ? body.thinking.type : undefined;
  return {
    model,
    turns,
    stream: body.stream === true,
    thinking: thinkingType === 'enabled' || (thinkingType !== 'disabled' && model.thinkingByDefault),
    maxTokens: Math.min(maxTokens, model.maxOutputTokens ?? maxTokens),
    stop: stopList(body.stop_sequences, 'stop_sequences'),
  };
}
