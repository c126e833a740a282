import { ApiError, invalid } from './api-error.ts';
import { chatAudio, chatImage } from './media-input.ts';
import type { AudioInput, ImageInput } from './media-input.ts';
import { idsWith } from './models.ts';
import type { ModelSpec } from './models.ts';

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as on the wire. */
  arguments: string;
}

export interface Turn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  text: string;
  images: ImageInput[];
  audios: AudioInput[];
  toolCalls: ToolCall[];
  toolCallId?: string;
  reasoning?: string;
}

export interface FunctionTool {
  name: string;
  parameters: Record<string, unknown>;
}

export interface WebSearchTool {
  maxKeyword?: number;
  forceSearch: boolean;
  limit?: number;
  location?: { country?: string; region?: string; city?: string };
}

export interface ChatRequest {
  model: ModelSpec;
  turns: Turn[];
  stream: boolean;
  thinking: boolean;
  maxTokens?: number;
  stop: string[];
  functionTools: FunctionTool[];
  webSearch?: WebSearchTool;
  toolChoice?: string;
  audio?: { format: string; voice: string };
  asrLanguage?: string;
}

export interface ChatLimits {
  models: ModelSpec[];
  voices: string[];
}

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function findModel(models: ModelSpec[], id: unknown): ModelSpec {
  if (typeof id !== 'string' || id === '') throw invalid('missing_field', 'The "model" field is required.');
  const model = models.find((m) => m.id === id);
  if (!model) throw new ApiError(404, 'invalid_request_error', 'model_not_found', `The model \`${id}\` does not exist.`);
  return model;
}

export function optionalPositiveInt(body: Json, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) throw invalid('invalid_value', `"${field}" must be a positive integer.`);
  return value as number;
}

export function stopList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value as string[];
  throw invalid('invalid_value', `"${field}" must be null, a string or an array of strings.`);
}

function parseTools(body: Json, model: ModelSpec, models: ModelSpec[]): { functions: FunctionTool[]; webSearch?: WebSearchTool } {
  const tools = body.tools;
  if (tools === undefined || tools === null) return { functions: [] };
  if (!Array.isArray(tools)) throw invalid('invalid_value', '"tools" must be an array.');
  const functions: FunctionTool[] = [];
  let webSearch: WebSearchTool | undefined;
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool)) throw invalid('invalid_value', `tools[${i}] must be an object.`);
    if (tool.type === 'web_search') {
      if (!model.webSearch) {
        throw invalid(
          'unsupported_capability',
          `The web_search tool is not supported by model ${model.id}; use one of ${idsWith(models, 'webSearch')}.`,
        );
      }
      const location = isObject(tool.user_location) ? tool.user_location : undefined;
      const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
      webSearch = {
        maxKeyword: typeof tool.max_keyword === 'number' ? tool.max_keyword : undefined,
        forceSearch: tool.force_search === true,
        limit: typeof tool.limit === 'number' ? tool.limit : undefined,
        location: location && { country: text(location.country), region: text(location.region), city: text(location.city) },
      };
      return;
    }
    if (tool.type !== 'function' || !isObject(tool.function)) {
      throw invalid('invalid_value', `tools[${i}] must be {type:'function', function:{...}} or {type:'web_search', ...}.`);
    }
    const { name, parameters } = tool.function;
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw invalid('invalid_value', `tools[${i}].function.name must match ^[a-zA-Z0-9_-]{1,64}$.`);
    }
    if (parameters !== undefined && !isObject(parameters))
      throw invalid('invalid_value', `tools[${i}].function.parameters must be a JSON schema object.`);
    functions.push({ name, parameters: parameters ?? {} });
  });
  return { functions, webSearch };
}

function parseAudioOptions(body: Json, model: ModelSpec, limits: ChatLimits, stream: boolean): ChatRequest['audio'] {
  const audio = body.audio;
  if (audio === undefined || audio === null) {
    if (model.tts) throw invalid('missing_field', `Model ${model.id} needs the "audio" object {format, voice}.`);
    return undefined;
  }
  if (!model.tts) {
    throw invalid('unsupported_capability', `The "audio" object (speech synthesis) is only accepted by ${idsWith(limits.models, 'tts')}.`);
  }
  if (!isObject(audio) || typeof audio.format !== 'string' || typeof audio.voice !== 'string') {
    throw invalid('invalid_value', '"audio" must be {format: string, voice: string}.');
  }
  const wanted = stream ? 'pcm16' : 'wav';
  if (audio.format !== wanted) {
    throw invalid(
      'invalid_value',
      `audio.format "${audio.format}" is not supported ${stream ? 'when streaming' : 'without streaming'}; use "${wanted}".`,
    );
  }
  if (!limits.voices.includes(audio.voice)) {
    throw invalid('invalid_value', `audio.voice "${audio.voice}" is unknown; use one of ${limits.voices.join(', ')}.`);
  }
  return { format: audio.format, voice: audio.voice };
}

function parseAsrOptions(body: Json, model: ModelSpec, models: ModelSpec[]): string | undefined {
  const options = body.asr_options;
  if (options === undefined || options === null) return undefined;
  if (!model.asr) throw invalid('unsupported_capability', `"asr_options" is only accepted by ${idsWith(models, 'asr')}.`);
  if (!isObject(options)) throw invalid('invalid_value', '"asr_options" must be an object.');
  if (options.language === undefined) return undefined;
  if (options.language !== 'auto' && options.language !== 'zh' && options.language !== 'en') {
    throw invalid('invalid_value', 'asr_options.language must be "auto", "zh" or "en".');
  }
  return options.language;
}

async function parsePart(part: unknown, where: string, model: ModelSpec, models: ModelSpec[], turn: Turn): Promise<void> {
  if (!isObject(part)) throw invalid('invalid_value', `${where} must be an object.`);
  if (part.type === 'text') {
    if (typeof part.text !== 'string') throw invalid('invalid_value', `${where}.text must be a string.`);
    turn.text += turn.text === '' ? part.text : `\n${part.text}`;
  } else if (part.type === 'image_url') {
    if (!model.vision) {
      throw invalid('unsupported_capability', `Model ${model.id} does not accept image input; use one of ${idsWith(models, 'vision')}.`);
    }
    const url = isObject(part.image_url) ? part.image_url.url : undefined;
    if (typeof url !== 'string') throw invalid('invalid_value', `${where}.image_url.url must be a string.`);
    turn.images.push(await chatImage(url, `${where} (image)`));
  } else if (part.type === 'input_audio') {
    if (!model.asr) {
      throw invalid('unsupported_capability', `Model ${model.id} does not accept input_audio; use ${idsWith(models, 'asr')}.`);
    }
    const data = isObject(part.input_audio) ? part.input_audio.data : undefined;
    if (typeof data !== 'string') throw invalid('invalid_value', `${where}.input_audio.data must be a data URL string.`);
    turn.audios.push(chatAudio(data, `${where} (audio)`));
  } else {
    throw invalid('invalid_value', `${where}.type must be text, image_url or input_audio.`);
  }
}

function parseToolCalls(value: unknown, where: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('invalid_value', `${where}.tool_calls must be an array.`);
  return value.map((call: unknown, i) => {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(call) || typeof call.id !== 'string' || !isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      throw invalid('invalid_value', `${where}.tool_calls[${i}] must be {id, type:'function', function:{name, arguments}}.`);
    }
    return { id: call.id, name: fn.name, arguments: fn.arguments };
  });
}

async function parseMessages(value: unknown, model: ModelSpec, models: ModelSpec[]): Promise<Turn[]> {
  if (!Array.isArray(value) || value.length === 0) throw invalid('missing_field', 'The "messages" field is required and must be a non-empty array.');
  const turns: Turn[] = [];
  for (const [i, message] of value.entries()) {
    const where = `messages[${i}]`;
    if (!isObject(message)) throw invalid('invalid_value', `${where} must be an object.`);
    const role = message.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw invalid('invalid_value', `${where}.role must be system, user, assistant or tool.`);
    }
    const turn: Turn = { role, text: '', images: [], audios: [], toolCalls: [] };
    const content = message.content;
    if (typeof content === 'string') turn.text = content;
    else if (Array.isArray(content)) {
      for (const [j, part] of content.entries()) await parsePart(part, `${where}.content[${j}]`, model, models, turn);
    } else if (!(content === null && role === 'assistant' && Array.isArray(message.tool_calls))) {
      throw invalid('invalid_value', `${where}.content must be a string or an array of content parts.`);
    }
    if (role === 'assistant') {
      turn.toolCalls = parseToolCalls(message.tool_calls, where);
      if (typeof message.reasoning_content === 'string') turn.reasoning = message.reasoning_content;
    }
    if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') throw invalid('invalid_value', `${where}.tool_call_id is required on a tool message.`);
      turn.toolCallId = message.tool_call_id;
    }
    turns.push(turn);
  }
  checkToolPairing(turns);
  return turns;
}

/** Every tool message answers a call of the assistant message before it, and every call is answered. */
function checkToolPairing(turns: Turn[]): void {
  turns.forEach((turn, i) => {
    if (turn.role === 'assistant' && turn.toolCalls.length > 0) {
      const answered = new Set<string>();
      for (let j = i + 1; j < turns.length && turns[j]!.role === 'tool'; j += 1) answered.add(turns[j]!.toolCallId!);
      const missing = turn.toolCalls.filter((c) => !answered.has(c.id));
      if (missing.length > 0) {
        throw invalid(
          'invalid_value',
          `messages[${i}] has tool_calls that are not answered by tool messages: ${missing.map((c) => c.id).join(', ')}.`,
        );
      }
    }
    if (turn.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && turns[j]!.role === 'tool') j -= 1;
      const owner = turns[j];
      if (owner?.role !== 'assistant' || !owner.toolCalls.some((c) => c.id === turn.toolCallId)) {
        throw invalid('invalid_value', `messages[${i}] (role tool) must answer a tool_call_id of the preceding assistant message.`);
      }
    }
  });
}

/** Validates a chat-completions body against the spec's rules; throws ApiError on the first problem. */
export async function parseChatRequest(body: unknown, limits: ChatLimits): Promise<ChatRequest> {
  if (!isObject(body)) throw invalid('invalid_request', 'The request body must be a JSON object.');
  const model = findModel(limits.models, body.model);
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    throw invalid('invalid_value', '"stream" must be a boolean.');
  }
  const stream = body.stream === true;
  const thinkingType = isObject(body.thinking) ? body.thinking.type : undefined;
  if (body.thinking !== undefined && typeof thinkingType !== 'string') throw invalid('invalid_value', '"thinking" must be {type: string}.');
  const tools = parseTools(body, model, limits.models);
  const audio = parseAudioOptions(body, model, limits, stream);
  const asrLanguage = parseAsrOptions(body, model, limits.models);
  const turns = await parseMessages(body.messages, model, limits.models);
  if (model.asr && !turns.some((t) => t.audios.length > 0)) {
    throw invalid('missing_field', `Model ${model.id} needs an input_audio part in a user message.`);
  }
  if (model.tts && !turns.some((t) => t.role === 'assistant' && t.text.trim() !== '')) {
    throw invalid('missing_field', 'Speech synthesis reads the text from an assistant message; none was found (a user message is not spoken).');
  }
  return {
    model,
    turns,
    stream,
    thinking: model.chat && (thinkingType === 'enabled' || (thinkingType !== 'disabled' && model.thinkingByDefault)),
    maxTokens: lowest(optionalPositiveInt(body, 'max_completion_tokens') ?? optionalPositiveInt(body, 'max_tokens'), model.maxOutputTokens),
    stop: stopList(body.stop, 'stop'),
    functionTools: tools.functions,
    webSearch: tools.webSearch,
    toolChoice: typeof body.tool_choice === 'string' ? body.tool_choice : undefined,
    audio,
    asrLanguage,
  };
}

function lowest(requested: number | undefined, cap: number | undefined): number | undefined {
  return requested === undefined ? cap : cap === undefined ? requested : Math.min(requested, cap);
}
