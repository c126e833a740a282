import type { WebSearchMode } from '../config/config.ts';
import type { ChatMessage, ChatRequest, ChatStream, FunctionTool, Tool } from '../service/types.ts';
import type { CapabilityDeps } from './deps.ts';
import { fitsMessagesFormat, toMessagesRequest } from './messages-format.ts';
import { webSearchTool } from './web-search-tool.ts';

export interface ChatInput {
  messages: ChatMessage[];
  /** Sent first as a system message (the top-level `system` in the Messages format). */
  system?: string;
  /** Default: config THINKING. Off sends `thinking: {type: 'disabled'}`; on leaves the model's default. */
  thinking?: boolean;
  tools?: FunctionTool[];
  /** Default: config WEB_SEARCH. */
  webSearch?: WebSearchMode;
  /** Default: config CHAT_MODEL. */
  model?: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** The Messages format requires max_tokens; chat completions leave it to the service. */
export const MESSAGES_MAX_TOKENS = 4096;

/**
 * A streamed chat answer. With API_FORMAT=messages, plain text and image conversations go to the
 * Messages endpoint; anything needing web search, function tools or audio goes to chat completions,
 * the only format that has them.
 */
export function chat(deps: CapabilityDeps, input: ChatInput): ChatStream {
  const { client, config } = deps;
  const model = input.model ?? config.models.chat;
  const thinking = input.thinking ?? config.thinking;
  const search = webSearchTool(config, input.webSearch);
  const functions = input.tools ?? [];
  const options = { signal: input.signal, capability: 'chat' };

  if (config.api.format === 'messages' && !search && functions.length === 0 && fitsMessagesFormat(input.messages)) {
    const request = toMessagesRequest(model, input.messages, input.maxTokens ?? MESSAGES_MAX_TOKENS, input.system);
    if (!thinking) request.thinking = { type: 'disabled' };
    if (input.temperature !== undefined) request.temperature = input.temperature;
    return client.messagesStream(request, options);
  }

  const messages: ChatMessage[] = input.system ? [{ role: 'system', content: input.system }, ...input.messages] : input.messages;
  const request: ChatRequest = { model, messages };
  if (!thinking) request.thinking = { type: 'disabled' };
  const tools: Tool[] = search ? [search, ...functions] : [...functions];
  if (tools.length > 0) {
    request.tools = tools;
    request.tool_choice = 'auto';
  }
  if (input.maxTokens !== undefined) request.max_completion_tokens = input.maxTokens;
  if (input.temperature !== undefined) request.temperature = input.temperature;
  return client.chatStream(request, options);
}
