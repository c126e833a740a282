import type { WorkspaceMessage } from './workspace-history.ts';

function minute(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * How much of a history Herald read, in words the answer can pass on: a channel is read from its newest message
 * back (`messages` oldest first), a thread from its first message on.
 */
export function readExtent(messages: readonly WorkspaceMessage[], order: 'newest-first' | 'oldest-first'): string {
  if (messages.length === 0) return 'none of it';
  if (order === 'oldest-first') return `its first ${messages.length} messages (up to ${minute(messages.at(-1)!.sentAt)})`;
  return `the latest ${messages.length} messages (back to ${minute(messages[0]!.sentAt)})`;
}

/** The history held more than one question may read (WORKSPACE_HISTORY_PAGES). */
export function pageBudgetNote(messages: readonly WorkspaceMessage[], order: 'newest-first' | 'oldest-first'): string {
  return `There is more history than I read for one question: I read ${readExtent(messages, order)}.`;
}
