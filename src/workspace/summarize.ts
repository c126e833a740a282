import type { ChatInput } from '../capabilities/chat.ts';
import type { Config } from '../config/config.ts';
import type { EngineTask } from '../conversation/engine.ts';
import type { ChatFunction } from '../conversation/reply-loop.ts';
import { estimateTextTokens, MESSAGE_OVERHEAD_TOKENS } from '../conversation/token-estimate.ts';
import type { ReplyEvent, ReplyUsage } from '../conversation/types.ts';
import { addUsage } from '../conversation/usage-meter.ts';
import { SummaryMarkers } from './summarize-markers.ts';
import { planParts } from './summarize-parts.ts';
import { combineSystemPrompt, messageLine, messageTimeFormat, partSystemPrompt, summarySystemPrompt } from './summarize-prompt.ts';
import type { HistoryRange, WorkspaceHistory, WorkspaceMessage } from './workspace-history.ts';

/** Longest summary the asker is shown (about one Discord message), and longest summary of one part of a long range. */
const SUMMARY_MAX_TOKENS = 500;
const PART_MAX_TOKENS = 600;
/** Requests one summary may make for its parts, besides the one combining them. */
const MAX_PARTS = 8;
/** Most messages one summary reads. */
export const MAX_SUMMARY_MESSAGES = 1000;
/** Messages summarized "since you last wrote" when the asker wrote none of those read. */
const UNREAD_DEFAULT_COUNT = 100;
/** Smallest prompt budget a part gets, however small the configured context. */
const MIN_PART_TOKENS = 256;

export interface SummaryRequest {
  history: WorkspaceHistory;
  range: HistoryRange;
  /**
   * Only the messages after this user's last one in the range; when they wrote none there, the newest
   * UNREAD_DEFAULT_COUNT. For "catch me up since I last wrote".
   */
  sinceLastBy?: string;
}

export interface SummaryDeps {
  chat: ChatFunction;
  /** The context budget of one request (CONTEXT_TOKENS). */
  contextTokens: number;
  timezone: string;
  model?: string;
  signal: AbortSignal;
  emit: (event: ReplyEvent) => void;
  /** Added to as each service response reports its usage. */
  usage: ReplyUsage;
}

/**
 * Reads a range of messages and summarizes it for the asker: its points cite the messages as numbered sources. A
 * range too long for one request is summarized in parts (at most MAX_PARTS, the newest kept) whose summaries are then
 * combined, their message numbers carried through; what was left out, here or by the reader, is said in a closing
 * notice.
 */
export async function summarize(request: SummaryRequest, deps: SummaryDeps): Promise<void> {
  deps.emit({ type: 'status', phase: 'reading', text: 'reading the messages…' });
  const read = await request.history.read(request.range, deps.signal);
  const { history } = request;
  // Herald's own messages and the request itself are not the conversation; a message without text says nothing.
  const said = read.messages.filter((m) => m.id !== history.questionId && m.authorId !== history.heraldId && m.text.trim() !== '');
  const messages = request.sinceLastBy === undefined ? said : unreadBy(said, request.sinceLastBy);
  const place = placeOf(request.range, messages);
  const time = messageTimeFormat(deps.timezone);
  const notices: string[] = read.cutShort ? [read.cutShort] : [];
  if (messages.length === 0) {
    const caughtUp = request.sinceLastBy !== undefined && said.length > 0;
    deps.emit({
      type: 'text',
      delta: caughtUp ? 'Nothing has been said there since your last message.' : 'There are no messages to summarize there.',
    });
  } else {
    const lines = messages.map((message, i) => messageLine(message, i + 1, time));
    const system = summarySystemPrompt(place);
    const markers = new SummaryMarkers(messages);
    const whole = lines.reduce((sum, line) => sum + estimateTextTokens(line) + 1, 0);
    if (whole <= promptBudget(deps.contextTokens, system, SUMMARY_MAX_TOKENS)) {
      deps.emit({ type: 'status', phase: 'thinking', text: `summarizing ${count(messages.length, 'message')}…` });
      await showSummary(deps, markers, { system, messages: [{ role: 'user', content: lines.join('\n') }], maxTokens: SUMMARY_MAX_TOKENS });
    } else {
      const combine = combineSystemPrompt(place);
      const maxParts = Math.max(2, Math.min(MAX_PARTS, Math.floor(promptBudget(deps.contextTokens, combine, SUMMARY_MAX_TOKENS) / PART_MAX_TOKENS)));
      const partBudget = Math.max(MIN_PART_TOKENS, promptBudget(deps.contextTokens, partSystemPrompt(place, maxParts, maxParts), PART_MAX_TOKENS));
      const plan = planParts(lines, partBudget, maxParts);
      const summaries: string[] = [];
      for (const [i, part] of plan.parts.entries()) {
        deps.emit({ type: 'status', phase: 'thinking', text: `summarizing part ${i + 1} of ${plan.parts.length}…` });
        const text = await answerText(deps, {
          system: partSystemPrompt(place, i + 1, plan.parts.length),
          messages: [{ role: 'user', content: part.lines.join('\n') }],
          maxTokens: PART_MAX_TOKENS,
        });
        summaries.push(`Part ${i + 1} (${time.format(messages[part.first]!.sentAt)} – ${time.format(messages[part.last]!.sentAt)}):\n${text.trim()}`);
      }
      deps.emit({ type: 'status', phase: 'thinking', text: 'combining the parts…' });
      await showSummary(deps, markers, {
        system: combine,
        messages: [{ role: 'user', content: summaries.join('\n\n') }],
        maxTokens: SUMMARY_MAX_TOKENS,
      });
      if (plan.leftOut > 0) {
        const firstKept = messages[plan.leftOut]!;
        notices.push(
          `Too long to summarize whole: the oldest ${count(plan.leftOut, 'message')}, before ${time.format(firstKept.sentAt)}, were left out.`,
        );
      }
    }
  }
  for (const text of notices) deps.emit({ type: 'notice', code: 'summary_incomplete', text });
}

function unreadBy(messages: readonly WorkspaceMessage[], userId: string): readonly WorkspaceMessage[] {
  const last = messages.findLastIndex((m) => m.authorId === userId);
  return last === -1 ? messages.slice(-UNREAD_DEFAULT_COUNT) : messages.slice(last + 1);
}

/** Where the messages are, as the asker knows it: `#launch`, or `a thread in #launch`. */
function placeOf(range: HistoryRange, messages: readonly WorkspaceMessage[]): string {
  const channel = messages[0] ? `#${messages[0].channelName}` : 'the channel';
  return range.threadId === undefined ? channel : `a thread in ${channel}`;
}

/** The summary as the engine's work (`engine.runTask`): admitted by the asker's quotas, in the model chosen there. */
export function summaryTask(request: SummaryRequest, config: Pick<Config, 'conversation' | 'timezone'>): EngineTask {
  return ({ settings, ...run }) =>
    summarize(request, { ...run, model: settings.model, contextTokens: config.conversation.contextTokens, timezone: config.timezone });
}

/** Tokens left for a request's messages once its system prompt and its answer are counted. */
function promptBudget(contextTokens: number, system: string, answerTokens: number): number {
  return contextTokens - estimateTextTokens(system) - answerTokens - 2 * MESSAGE_OVERHEAD_TOKENS;
}

function request(deps: SummaryDeps, input: Pick<ChatInput, 'system' | 'messages' | 'maxTokens'>): ChatInput {
  return { ...input, thinking: false, webSearch: 'off', signal: deps.signal, ...(deps.model && { model: deps.model }) };
}

/**
 * Asks for the summary the asker sees and shows it whole, its markers turned into the reply's sources: one edit of the
 * reply rather than one per streamed piece, so a summary costs the platform as few calls as possible.
 */
async function showSummary(deps: SummaryDeps, markers: SummaryMarkers, input: Pick<ChatInput, 'system' | 'messages' | 'maxTokens'>): Promise<void> {
  const text = markers.push(await answerText(deps, input)) + markers.flush();
  if (markers.citations.length > 0) deps.emit({ type: 'citations', citations: markers.citations });
  if (text) deps.emit({ type: 'text', delta: text });
}

/** One answer, read whole; a service that ignores the answer's token cap is not read past a bound. */
async function answerText(deps: SummaryDeps, input: Pick<ChatInput, 'system' | 'messages' | 'maxTokens'>): Promise<string> {
  const maxChars = (input.maxTokens ?? SUMMARY_MAX_TOKENS) * 8;
  let text = '';
  for await (const delta of deps.chat(request(deps, input))) {
    if (delta.type === 'content') text += delta.text;
    else if (delta.type === 'usage') addUsage(deps.usage, delta.usage);
    if (text.length > maxChars) return text.slice(0, maxChars);
  }
  return text;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
