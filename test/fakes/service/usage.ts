import { createHash } from 'node:crypto';
import { audioTokens } from './asr.ts';
import type { Turn } from './chat-request.ts';
import { imageTokens } from './image-tokens.ts';
import { countTokens } from './tokens.ts';

/** Per-message overhead of the chat template. */
const messageOverhead = 4;

export interface TokenCounts {
  prompt: number;
  completion: number;
  reasoning: number;
  cached: number;
  image?: number;
  audio?: number;
  seconds?: number;
  webSearch?: { tool_usage: number; page_usage: number };
}

export function turnTokens(turn: Turn): number {
  const calls = turn.toolCalls.reduce((sum, c) => sum + countTokens(c.name) + countTokens(c.arguments), 0);
  const images = turn.images.reduce((sum, i) => sum + imageTokens(i.width, i.height), 0);
  const audio = turn.audios.reduce((sum, a) => sum + audioTokens(a.seconds), 0);
  return messageOverhead + countTokens(turn.text) + countTokens(turn.reasoning ?? '') + calls + images + audio;
}

/**
 * Remembers every message prefix it has seen (per model); a later request starting with a seen
 * prefix reports that prefix's tokens as cached_tokens.
 */
export class PromptCache {
  readonly #seen = new Map<string, number>();

  cachedTokens(model: string, rawMessages: unknown[], turns: Turn[]): number {
    let hash = createHash('sha256').update(model).digest('hex');
    let total = 0;
    let cached = 0;
    rawMessages.forEach((message, i) => {
      hash = createHash('sha256').update(hash).update(JSON.stringify(message)).digest('hex');
      total += turnTokens(turns[i]!);
      if (this.#seen.has(hash)) cached = total;
      else this.#seen.set(hash, total);
    });
    return cached;
  }

  clear(): void {
    this.#seen.clear();
  }
}

/** The chat-completions usage object (spec §2.4). */
export function chatUsage(counts: TokenCounts): Record<string, unknown> {
  const details: Record<string, number> = { cached_tokens: counts.cached };
  if (counts.image !== undefined) details.image_tokens = counts.image;
  if (counts.audio !== undefined) details.audio_tokens = counts.audio;
  const usage: Record<string, unknown> = {
    prompt_tokens: counts.prompt,
    completion_tokens: counts.completion,
    total_tokens: counts.prompt + counts.completion,
    completion_tokens_details: { reasoning_tokens: counts.reasoning },
    prompt_tokens_details: details,
  };
  if (counts.seconds !== undefined) usage.seconds = counts.seconds;
  if (counts.webSearch) usage.web_search_usage = counts.webSearch;
  return usage;
}
