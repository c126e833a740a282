import type { Usage } from '../service/types.ts';
import { emptyServiceUsage } from '../service/usage.ts';
import type { ReplyUsage } from './types.ts';

export function emptyUsage(): ReplyUsage {
  const { webSearch: _, ...tokens } = emptyServiceUsage();
  return { serviceCalls: 0, ...tokens, webSearchCalls: 0, webPages: 0 };
}

/** Adds one service response's usage to a reply's running total. */
export function addUsage(total: ReplyUsage, usage: Usage): void {
  total.serviceCalls += 1;
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  total.totalTokens += usage.totalTokens || usage.promptTokens + usage.completionTokens;
  total.reasoningTokens += usage.reasoningTokens;
  total.cachedTokens += usage.cachedTokens;
  total.imageTokens += usage.imageTokens;
  total.audioTokens += usage.audioTokens;
  total.audioSeconds += usage.audioSeconds;
  total.webSearchCalls += usage.webSearch.toolUsage;
  total.webPages += usage.webSearch.pageUsage;
}
