import type { WorkspaceMessage } from './workspace-history.ts';

/** Longest text of one message put in a prompt; a longer message is cut with an ellipsis. */
const MESSAGE_CHARS = 2000;

const RULES =
  'Write a short summary as a bulleted list of at most 12 points, under 1500 characters in all: the main points, decisions, open questions and who is doing what. ' +
  'End every point with the numbers of the messages it comes from, as [n] or [n, m]. ' +
  'Use only the messages given and never invent; write in the language most of the messages are in.';

/** For the one request that summarizes messages that fit the context together. */
export function summarySystemPrompt(place: string): string {
  return `You catch someone up on the conversation in ${place}. The messages are numbered [n], oldest first. ${RULES}`;
}

/** For one part of a range too long for the context; the parts are combined afterwards. */
export function partSystemPrompt(place: string, part: number, parts: number): string {
  return (
    `You summarize part ${part} of ${parts} of the conversation in ${place}, for a summary of the whole made afterwards. ` +
    `The messages are numbered [n], oldest first, across all parts: keep those numbers. ${RULES}`
  );
}

export function combineSystemPrompt(place: string): string {
  return (
    `You catch someone up on the conversation in ${place}. You are given summaries of its consecutive parts, oldest first, ` +
    'whose points cite messages by their numbers [n]. Combine them into one short bulleted summary of the whole; ' +
    'keep each point’s message numbers exactly as given. Use only what the summaries say; write in their language.'
  );
}

/** One message as a prompt line: `[n] author (time): text`, on one line. */
export function messageLine(message: WorkspaceMessage, n: number, time: Intl.DateTimeFormat): string {
  const flat = message.text
    .slice(0, MESSAGE_CHARS * 2)
    .replace(/\s+/g, ' ')
    .trim();
  const text = flat.length > MESSAGE_CHARS ? `${flat.slice(0, MESSAGE_CHARS - 1)}…` : flat;
  return `[${n}] ${message.author}${message.isBot ? ' (bot)' : ''} (${time.format(message.sentAt)}): ${text}`;
}

/** Times as the asker reads them: weekday and time of day in the operator's time zone. */
export function messageTimeFormat(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}
