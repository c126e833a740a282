import type { Usage } from './types.ts';

export function emptyServiceUsage(): Usage {
  return {
    promptTokens: 0,
    completionTokens: 0,
    totalTokens: 0,
    reasoningTokens: 0,
    cachedTokens: 0,
    imageTokens: 0,
    audioTokens: 0,
    audioSeconds: 0,
    webSearch: { toolUsage: 0, pageUsage: 0 },
  };
}

type Raw = Record<string, unknown> | null | undefined;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function obj(value: unknown): Raw {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** Chat-completions `usage` (including the service's `seconds` and `web_search_usage`). */
export function usageFromChat(raw: unknown): Usage {
  const u = obj(raw);
  const completion = obj(u?.completion_tokens_details);
  const prompt = obj(u?.prompt_tokens_details);
  const search = obj(u?.web_search_usage);
  const promptTokens = num(u?.prompt_tokens);
  const completionTokens = num(u?.completion_tokens);
  return {
    promptTokens,
    completionTokens,
    totalTokens: num(u?.total_tokens) || promptTokens + completionTokens,
    reasoningTokens: num(completion?.reasoning_tokens),
    cachedTokens: num(prompt?.cached_tokens),
    imageTokens: num(prompt?.image_tokens),
    audioTokens: num(prompt?.audio_tokens),
    audioSeconds: num(u?.seconds),
    webSearch: { toolUsage: num(search?.tool_usage), pageUsage: num(search?.page_usage) },
  };
}

/**
 * Messages-format `usage`. Its `input_tokens` excludes cache reads and writes, which the chat format
 * counts inside the prompt, so they are added back. The stream reports usage in two halves, hence `base`.
 */
export function usageFromMessages(raw: unknown, base?: Usage): Usage {
  const u = obj(raw);
  const usage = base ? { ...base, webSearch: { ...base.webSearch } } : emptyServiceUsage();
  if (typeof u?.input_tokens === 'number') {
    usage.cachedTokens = num(u.cache_read_input_tokens);
    usage.promptTokens = u.input_tokens + usage.cachedTokens + num(u.cache_creation_input_tokens);
  }
  if (typeof u?.output_tokens === 'number') usage.completionTokens = u.output_tokens;
  usage.totalTokens = usage.promptTokens + usage.completionTokens;
  return usage;
}
