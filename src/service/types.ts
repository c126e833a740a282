/** Wire and result types shared by the service client, the capabilities and everything above them. */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string } };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A chat-completions wire message. */
export interface ChatMessage {
  role: Role;
  content: string | ContentPart[] | null;
  reasoning_content?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

export interface JsonSchemaProperty {
  type: string;
  description?: string;
  enum?: readonly (string | number | boolean)[];
  items?: JsonSchemaProperty | JsonSchemaObject;
  properties?: Record<string, JsonSchemaProperty>;
  required?: readonly string[];
}

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, JsonSchemaProperty>;
  required?: readonly string[];
  additionalProperties?: boolean;
}

export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject };
}

export interface WebSearchLocation {
  type: 'approximate';
  country?: string;
  region?: string;
  city?: string;
}

export interface WebSearchTool {
  type: 'web_search';
  max_keyword?: number;
  force_search?: boolean;
  /** Passed through as the service defines it (its meaning is not documented). */
  limit?: number;
  user_location?: WebSearchLocation;
}

export type Tool = FunctionTool | WebSearchTool;

/** Body of POST /v1/chat/completions (`stream` is set by the client). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[] | null;
  thinking?: { type: 'enabled' | 'disabled' };
  tools?: Tool[];
  tool_choice?: 'auto';
  audio?: { format: 'wav' | 'pcm16'; voice: string };
  asr_options?: { language: 'auto' | 'zh' | 'en' };
}

export type MessagesImageSource = { type: 'url'; url: string } | { type: 'base64'; media_type: string; data: string };

export type MessagesBlock = { type: 'text'; text: string } | { type: 'image'; source: MessagesImageSource };

export interface MessagesMessage {
  role: 'user' | 'assistant';
  content: string | MessagesBlock[];
}

/** Body of POST /<prefix>/v1/messages (`stream` is set by the client). */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string;
  messages: MessagesMessage[];
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[] | null;
  thinking?: { type: 'enabled' | 'disabled' };
}

export interface Citation {
  /** 1-based; matches the `[n]` markers in the answer text after renumbering. */
  index: number;
  url: string;
  title: string;
  summary?: string;
  siteName?: string;
  publishTime?: string;
  logoUrl?: string;
  /** Set when the source is a message of the workspace (its `url` opens it): shown apart from web pages. */
  message?: { channelName: string; author: string; sentAt: number };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  reasoningTokens: number;
  cachedTokens: number;
  imageTokens: number;
  audioTokens: number;
  audioSeconds: number;
  webSearch: { toolUsage: number; pageUsage: number };
}

export type ChatDelta =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  /** Assembled from the stream's fragments; emitted once, when complete. */
  | { type: 'tool_calls'; calls: ToolCall[] }
  /**
   * Deduplicated by URL and numbered 1..n. The content and reasoning deltas that follow are already
   * rewritten to these numbers (a renderer prints them as they come and must not remap again).
   * `remap[k]` is the new number of the service's original marker `[k+1]`, for text obtained elsewhere.
   */
  | { type: 'citations'; citations: Citation[]; remap: readonly number[] }
  /** Raw decoded bytes of this chunk (pcm16 chunks may be odd-sized). */
  | { type: 'audio'; data: Buffer }
  | { type: 'usage'; usage: Usage }
  /** Always the last delta; reason null when the stream ended without one. */
  | { type: 'finish'; reason: string | null };

export interface ChatResult {
  content: string;
  reasoning: string;
  toolCalls: ToolCall[];
  citations: Citation[];
  audio?: Buffer;
  usage: Usage;
  finishReason: string | null;
  model: string;
  requestId?: string;
}

/** A streamed answer: iterate the deltas, or call finalResult() to collect the rest. */
export interface ChatStream extends AsyncIterable<ChatDelta> {
  /** Consumes whatever has not been iterated yet and returns the whole answer. */
  finalResult(): Promise<ChatResult>;
  /** Stops the stream and closes the HTTP request; iteration then ends quietly. */
  abort(): void;
  /** The service's request id, once the response headers arrived. */
  readonly requestId: string | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Names the request in the log line (chat, describe, transcribe, synthesize …). */
  capability?: string;
}

export interface ServiceTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}
