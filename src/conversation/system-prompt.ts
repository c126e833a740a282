import { longDate } from './clock.ts';

export const KNOWLEDGE_CUTOFF = 'December 2024';

export interface SystemPromptInput {
  now: Date;
  timezone: string;
  /** discord, slack, cli, … */
  platform: string;
  /** Replaces the identity line; the date, cutoff and conventions stay. */
  persona?: string;
  /** Several people may speak; user turns carry `[Name]: ` prefixes. */
  shared: boolean;
  /** Function tools are offered in this conversation. */
  tools: boolean;
  /** The answer is spoken aloud (a voice channel) rather than shown. */
  spoken?: boolean;
}

const platformNames: Record<string, string> = { discord: 'Discord', slack: 'Slack', cli: 'a terminal' };

/**
 * The system message the service recommends: who the assistant is, today's date with weekday (in TZ)
 * and the knowledge cutoff, plus how to read this chat.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const where = platformNames[input.platform] ?? input.platform;
  const identity =
    input.persona ??
    `You are Herald, a helpful, friendly and concise assistant chatting on ${where}. ` +
      'You can answer questions, look at images, read voice messages (as transcripts) and search the web when it is enabled.';
  const lines = [
    identity,
    `Today is ${longDate(input.now, input.timezone)} (time zone ${input.timezone}). Your knowledge cutoff is ${KNOWLEDGE_CUTOFF}; for later events rely on search results or say you may not know.`,
    input.spoken
      ? 'You are in a voice channel: your answer is spoken aloud and what people said reaches you transcribed, possibly misheard. ' +
        'Answer briefly in plain spoken sentences, without Markdown, lists, links or code. When you use web sources, cite them with [n] markers.'
      : 'Format answers with Markdown that chat apps render (short paragraphs, lists, code blocks). When you use web sources, cite them with [n] markers.',
  ];
  if (input.shared) {
    lines.push(
      'This is a shared channel: each user message starts with the speaker\'s name in brackets, like "[Alice]: …". ' +
        'Keep track of who said what and address people by name when it helps. Do not start your own replies with a name in brackets.',
    );
  }
  if (input.tools) lines.push('Use the provided tools when they give a more reliable answer (exact math, current time, dice).');
  return lines.join('\n\n');
}
