import type { ChatInput } from '../capabilities/chat.ts';
import type { WebSearchMode } from '../config/config.ts';
import { ContextTooLargeError } from '../errors.ts';
import { MarkerRewriter, markerRemap, remapCitationMarkers } from '../service/citations.ts';
import type { ChatMessage, ChatStream, FunctionTool, ToolCall } from '../service/types.ts';
import type { ToolExecution, ToolRegistry } from '../tools/registry.ts';
import type { ToolContext } from '../tools/types.ts';
import { fitContext, type Exchange } from './context-budget.ts';
import { ReplyCitations } from './reply-citations.ts';
import { estimateMessageTokens, estimateTextTokens } from './token-estimate.ts';
import type { ReplyEvent, ReplyUsage } from './types.ts';
import { addUsage } from './usage-meter.ts';

export type ChatFunction = (input: ChatInput) => ChatStream;

export interface ReplyLoopInput {
  chat: ChatFunction;
  system: string;
  history: readonly Exchange[];
  /** The user's turn being answered. */
  user: ChatMessage;
  budget: number;
  model?: string;
  thinking: boolean;
  webSearch: WebSearchMode;
  /** Function tools offered (empty for none). */
  tools: FunctionTool[];
  registry: ToolRegistry;
  toolContext: ToolContext;
  maxToolRounds: number;
  signal: AbortSignal;
  emit: (event: ReplyEvent) => void;
  /** Added to as each service response reports its usage. */
  usage: ReplyUsage;
  imageTokens: (url: string) => number;
}

export interface ReplyLoopResult {
  /** The user's turn and every message that answered it, ready to store. */
  messages: ChatMessage[];
  answer: string;
  /** The service's finish reason for the last response (null when it gave none). */
  finishReason: string | null;
}

/**
 * Answers one user turn: asks the model, runs the tool calls it makes (all calls of a round in
 * parallel), sends the results back and repeats, for at most `maxToolRounds` rounds of tool use; then
 * asks once more with tools withdrawn, so the user still gets an answer. Every round re-fits the
 * history to the context budget (the current turn grows with tool results) and the first trim is
 * announced. Assistant tool-call messages keep their reasoning_content for the later rounds.
 */
export async function runReplyLoop(input: ReplyLoopInput): Promise<ReplyLoopResult> {
  const { emit, signal } = input;
  const current: ChatMessage[] = [input.user];
  const sources = new ReplyCitations();
  const systemTokens = estimateTextTokens(input.system) + 4;
  let currentTokens = estimateMessageTokens(input.user, input.imageTokens);
  let announcedTrim = false;
  let shown = '';
  // Tools that failed and were not called again with success: the answer had to do without them.
  const failedTools = new Map<string, string>();

  for (let round = 0; ; round += 1) {
    const lastRound = round >= input.maxToolRounds;
    const system = lastRound ? `${input.system}\n\n${toolLimitNote(input.maxToolRounds)}` : input.system;
    const fit = fitContext({ systemTokens, history: input.history, current, currentTokens, budget: input.budget });
    if (!fit.fits) throw new ContextTooLargeError(systemTokens + currentTokens, input.budget);
    if (fit.dropped > 0 && !announcedTrim) {
      announcedTrim = true;
      emit({ type: 'notice', code: 'history_trimmed', text: 'Earlier messages were trimmed to fit the context.' });
    }
    if (round === 0) {
      emit(
        input.webSearch === 'force'
          ? { type: 'status', phase: 'searching', text: 'searching the web…' }
          : { type: 'status', phase: 'thinking', text: 'thinking…' },
      );
    } else emit({ type: 'status', phase: 'thinking', text: 'thinking…' });

    const tools = lastRound ? [] : input.tools;
    const response = await streamRound(input, sources, {
      messages: fit.messages,
      system,
      thinking: input.thinking,
      webSearch: input.webSearch,
      ...(tools.length > 0 && { tools }),
      ...(input.model && { model: input.model }),
      signal,
    });
    shown += response.content;

    if (response.calls.length === 0 || lastRound) {
      if (response.calls.length > 0 || (lastRound && response.content.trim() === '')) {
        emit({
          type: 'notice',
          code: 'tool_rounds_exhausted',
          text: `I stopped after ${input.maxToolRounds} round${input.maxToolRounds === 1 ? '' : 's'} of tool use, so this answer may be incomplete.`,
        });
      }
      for (const title of failedTools.values()) {
        emit({ type: 'notice', code: 'tool_failed', text: `The tool ${title} failed, so this answer may be incomplete.` });
      }
      const listed = sources.list;
      const cited = sources.shownWith(shown);
      if (cited.length < listed.length) emit({ type: 'citations', citations: cited });
      const answer: ChatMessage = { role: 'assistant', content: response.content };
      current.push(answer);
      return { messages: current, answer: response.content, finishReason: response.finishReason };
    }

    const assistant: ChatMessage = { role: 'assistant', content: response.content === '' ? null : response.content, tool_calls: response.calls };
    if (response.reasoning) assistant.reasoning_content = response.reasoning;
    current.push(assistant);
    currentTokens += estimateMessageTokens(assistant, input.imageTokens);

    const names = [...new Set(response.calls.map((c) => c.function.name))].join(', ');
    emit({ type: 'status', phase: 'tool', text: `using ${names}…` });
    const results = await Promise.all(response.calls.map((call) => input.registry.execute(call, { ...input.toolContext, signal })));
    for (const result of results) {
      noteFailure(result, input.registry, failedTools);
      for (const file of result.attachments) emit({ type: 'attachment', ...file });
      const message: ChatMessage = { role: 'tool', tool_call_id: result.callId, content: withReplySources(result, sources, emit) };
      current.push(message);
      currentTokens += estimateMessageTokens(message, input.imageTokens);
    }
  }
}

interface RoundResponse {
  content: string;
  reasoning: string;
  calls: ToolCall[];
  finishReason: string | null;
}

async function streamRound(input: ReplyLoopInput, sources: ReplyCitations, request: ChatInput): Promise<RoundResponse> {
  const { emit } = input;
  const stream = input.chat(request);
  let content = '';
  let reasoning = '';
  let calls: ToolCall[] = [];
  let finishReason: string | null = null;
  let rewriter: MarkerRewriter | undefined;
  for await (const delta of stream) {
    switch (delta.type) {
      case 'content': {
        const text = rewriter ? rewriter.push(delta.text) : delta.text;
        if (text) {
          content += text;
          emit({ type: 'text', delta: text });
        }
        break;
      }
      case 'reasoning':
        reasoning += delta.text;
        emit({ type: 'reasoning', delta: delta.text });
        break;
      case 'citations': {
        const remap = sources.add(delta.citations);
        if (remap) rewriter = new MarkerRewriter(markerRemap(remap));
        emit({ type: 'citations', citations: sources.list });
        break;
      }
      case 'tool_calls':
        calls = [...calls, ...delta.calls];
        break;
      case 'usage':
        addUsage(input.usage, delta.usage);
        break;
      case 'finish':
        finishReason = delta.reason;
        break;
      default:
        break;
    }
  }
  const rest = rewriter?.flush();
  if (rest) {
    content += rest;
    emit({ type: 'text', delta: rest });
  }
  return { content, reasoning, calls, finishReason };
}

/** A tool's sources join the reply's list; its markers are renumbered to that list before the model reads them. */
function withReplySources(result: ToolExecution, sources: ReplyCitations, emit: (event: ReplyEvent) => void): string {
  if (result.citations.length === 0) return result.content;
  const remap = sources.add(result.citations);
  emit({ type: 'citations', citations: sources.list });
  return remap ? remapCitationMarkers(result.content, remap) : result.content;
}

/**
 * Keeps track of the tools whose calls failed: a tool's own error, not a call the asker declined or a tool the model
 * made up. Named by title, with nothing but letters, digits and a few marks (a server's tool name is untrusted text).
 */
function noteFailure(result: ToolExecution, registry: ToolRegistry, failed: Map<string, string>): void {
  const tool = registry.get(result.name);
  if (result.ok || !tool) {
    failed.delete(result.name);
    return;
  }
  if (result.declined) return;
  failed.set(result.name, (tool.title ?? tool.name).replace(/[^\p{L}\p{N} ·._-]/gu, '').slice(0, 80));
}

function toolLimitNote(rounds: number): string {
  return `You have already used tools ${rounds} times for this reply, which is the limit. Answer now from the results above; do not call tools.`;
}
