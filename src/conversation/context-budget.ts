import type { ChatMessage } from '../service/types.ts';

/**
 * One user turn and everything answering it: assistant messages (with their tool calls and reasoning)
 * and tool results. Trimming drops whole exchanges, so a tool call is never separated from its result.
 */
export interface Exchange {
  messages: ChatMessage[];
  /** Estimated tokens of `messages`, computed once when the exchange is stored. */
  tokens: number;
  /** When it happened (ms since the epoch). */
  at: number;
  /** The platform message that started it, so an edit of that message can replace it. */
  messageId?: string;
}

export interface FitInput {
  systemTokens: number;
  /** Oldest first. */
  history: readonly Exchange[];
  /** The exchange being answered, so far. */
  current: readonly ChatMessage[];
  currentTokens: number;
  budget: number;
}

export interface Fit {
  /** History that fits (oldest first) followed by the current exchange; the system prompt is separate. */
  messages: ChatMessage[];
  /** How many of the oldest exchanges were left out. */
  dropped: number;
  tokens: number;
  /** False when the system prompt and the current exchange alone exceed the budget. */
  fits: boolean;
}

/** Keeps the system prompt and the current exchange, then as many of the newest earlier exchanges as fit. */
export function fitContext(input: FitInput): Fit {
  let tokens = input.systemTokens + input.currentTokens;
  let first = input.history.length;
  while (first > 0 && tokens + input.history[first - 1]!.tokens <= input.budget) {
    first -= 1;
    tokens += input.history[first]!.tokens;
  }
  const kept = input.history.slice(first);
  return {
    messages: [...kept.flatMap((e) => e.messages), ...input.current],
    dropped: first,
    tokens,
    fits: input.systemTokens + input.currentTokens <= input.budget,
  };
}

/** The newest exchanges totalling at most `budget` tokens: older ones could never be sent again. */
export function newestWithin(exchanges: readonly Exchange[], budget: number): Exchange[] {
  let total = 0;
  let first = exchanges.length;
  while (first > 0 && total + exchanges[first - 1]!.tokens <= budget) {
    first -= 1;
    total += exchanges[first]!.tokens;
  }
  return exchanges.slice(first);
}
