import { audioTokens, transcribe } from './asr.ts';
import type { Transcriber } from './asr.ts';
import type { ChatRequest, ToolCall } from './chat-request.ts';
import { imageTokens } from './image-tokens.ts';
import { limitText } from './text-limits.ts';
import { lastUserTurn, reasoningFor, textReply } from './text-answer.ts';
import { countTokens } from './tokens.ts';
import { requestedToolCalls, toolResultsReply } from './tool-calls.ts';
import { synthesize } from './tts.ts';
import type { Speech } from './tts.ts';
import { chatUsage, turnTokens } from './usage.ts';
import { search, searchReply, shouldSearch, tokensPerPage } from './web-search.ts';
import type { Citation } from './web-search.ts';

/** What the model "says", independent of JSON or stream rendering. */
export interface ChatAnswer {
  content: string | null;
  reasoning?: string;
  toolCalls: ToolCall[];
  citations?: Citation[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  speech?: Speech;
  transcript: boolean;
  usage: Record<string, unknown>;
}

export interface AnswerContext {
  voices: string[];
  transcripts: Map<string, string>;
  transcriber?: Transcriber;
  cachedTokens: number;
}

function promptTokens(request: ChatRequest): number {
  return request.turns.reduce((sum, t) => sum + turnTokens(t), 0);
}

function speechAnswer(request: ChatRequest, context: AnswerContext): ChatAnswer {
  const text = request.turns.findLast((t) => t.role === 'assistant' && t.text.trim() !== '')!.text;
  const speech = synthesize(text, context.voices.indexOf(request.audio!.voice));
  const completion = audioTokens(speech.seconds);
  return {
    content: '',
    toolCalls: [],
    finishReason: 'stop',
    speech,
    transcript: false,
    usage: chatUsage({ prompt: promptTokens(request), completion, reasoning: 0, cached: context.cachedTokens }),
  };
}

function transcriptAnswer(request: ChatRequest, context: AnswerContext): ChatAnswer {
  const audios = request.turns.flatMap((t) => t.audios);
  const text = transcribe(audios, request.asrLanguage, context.transcripts, context.transcriber);
  const seconds = audios.reduce((sum, a) => sum + a.seconds, 0);
  const audio = audios.reduce((sum, a) => sum + audioTokens(a.seconds), 0);
  return {
    content: text,
    toolCalls: [],
    finishReason: 'stop',
    transcript: true,
    usage: chatUsage({
      prompt: promptTokens(request),
      completion: countTokens(text),
      reasoning: 0,
      cached: context.cachedTokens,
      audio,
      seconds: Math.ceil(seconds),
    }),
  };
}

function textAnswer(request: ChatRequest, context: AnswerContext): ChatAnswer {
  const text = lastUserTurn(request.turns)?.text.trim() ?? '';
  const toolsAllowed = request.toolChoice !== 'none' && request.turns.at(-1)?.role === 'user';
  const calls = toolsAllowed ? requestedToolCalls(text, request.functionTools) : [];
  const results = toolResultsReply(request.turns);
  const searched =
    calls.length === 0 && results === null && request.webSearch && shouldSearch(request.webSearch, text)
      ? search(request.webSearch, text)
      : undefined;

  let reply: string | null;
  let reasoning: string | undefined;
  if (calls.length > 0) {
    reply = null;
    reasoning = `The user asked for ${calls.map((c) => c.name).join(' and ')}. I will call the tool${calls.length > 1 ? 's' : ''}.`;
  } else if (results !== null) {
    reply = results;
    reasoning = 'The tools have answered; I will summarise their results.';
  } else if (searched) {
    reply = searchReply(searched, request.webSearch!.location);
    reasoning = `I searched the web for: ${searched.keywords.join(', ')}.`;
  } else {
    reply = textReply(request.turns);
    reasoning = reasoningFor(text);
  }
  if (!request.thinking) reasoning = undefined;

  const limited = reply === null ? undefined : limitText(reply, request.stop, request.maxTokens);
  const images = request.turns.flatMap((t) => t.images);
  const reasoningTokens = countTokens(reasoning ?? '');
  const callTokens = calls.reduce((sum, c) => sum + countTokens(c.name) + countTokens(c.arguments), 0);
  return {
    content: limited?.text ?? null,
    reasoning,
    toolCalls: calls,
    citations: searched?.citations,
    finishReason: calls.length > 0 ? 'tool_calls' : limited!.reason,
    transcript: false,
    usage: chatUsage({
      prompt: promptTokens(request) + (searched ? searched.usage.page_usage * tokensPerPage : 0),
      completion: countTokens(limited?.text ?? '') + reasoningTokens + callTokens,
      reasoning: reasoningTokens,
      cached: context.cachedTokens,
      image: images.length > 0 ? images.reduce((sum, i) => sum + imageTokens(i.width, i.height), 0) : undefined,
      webSearch: searched?.usage,
    }),
  };
}

export function answerChat(request: ChatRequest, context: AnswerContext): ChatAnswer {
  if (request.model.tts) return speechAnswer(request, context);
  if (request.model.asr) return transcriptAnswer(request, context);
  return textAnswer(request, context);
}
