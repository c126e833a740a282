import { estimateTextTokens } from '../conversation/token-estimate.ts';

/** A run of consecutive prompt lines summarized in one request; `first`/`last` index the range's messages. */
export interface SummaryPart {
  lines: string[];
  first: number;
  last: number;
}

export interface PartPlan {
  /** Oldest first. */
  parts: SummaryPart[];
  /** How many of the oldest messages found no place once `maxParts` were full. */
  leftOut: number;
}

/**
 * Splits a range's lines (one per message, oldest first) into at most `maxParts` runs of at most `budgetTokens` each,
 * filled from the newest message back, so a cap leaves out the oldest. A line longer than the budget alone is cut to it.
 */
export function planParts(lines: readonly string[], budgetTokens: number, maxParts: number): PartPlan {
  const parts: SummaryPart[] = [];
  let current: SummaryPart | undefined;
  let used = 0;
  let leftOut = 0;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    let line = lines[i]!;
    let tokens = estimateTextTokens(line) + 1;
    if (tokens > budgetTokens) {
      // Every character is at most one token, so this many characters fit.
      line = `${line.slice(0, Math.max(1, budgetTokens - 2))}…`;
      tokens = estimateTextTokens(line) + 1;
    }
    if (!current || used + tokens > budgetTokens) {
      if (parts.length === maxParts) {
        leftOut = i + 1;
        break;
      }
      current = { lines: [], first: i, last: i };
      parts.push(current);
      used = 0;
    }
    current.lines.push(line);
    current.first = i;
    used += tokens;
  }
  for (const part of parts) part.lines.reverse();
  return { parts: parts.reverse(), leftOut };
}
