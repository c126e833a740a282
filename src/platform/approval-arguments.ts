import type { ApprovalEnd } from './platform.ts';

/** Longest arguments text an approval shows; longer is cut with a note (the call still runs with all of it). */
export const MAX_APPROVAL_ARGS_CHARS = 1500;

/**
 * A call's arguments as an approval shows them: pretty JSON, cut at `max` characters. Backticks (only ever inside JSON
 * strings) are written as `\u0060`, so untrusted text cannot close the code block it is shown in.
 */
export function approvalArguments(args: Record<string, unknown>, max = MAX_APPROVAL_ARGS_CHARS): string {
  const json = JSON.stringify(args, null, 2).replaceAll('`', '\\u0060');
  if (json.length <= max) return json;
  return `${json.slice(0, max)}\n… (${json.length - max} more characters)`;
}

/** Longest tool title an approval shows. */
const MAX_APPROVAL_TITLE = 100;

/** A tool's title as an approval shows it in inline code: one line, its backticks dropped, cut at 100 characters. */
export function approvalTitle(text: string): string {
  const plain = text.replaceAll('`', "'").replace(/\s+/g, ' ').trim();
  return plain.length <= MAX_APPROVAL_TITLE ? plain : `${plain.slice(0, MAX_APPROVAL_TITLE - 1)}…`;
}

/** How a settled approval says it ended. */
export const APPROVAL_ENDS: Readonly<Record<ApprovalEnd, string>> = {
  approved: '✅ Approved',
  denied: '🚫 Denied',
  expired: '⌛ Not answered in time, so denied',
  cancelled: '✖️ Cancelled',
};
