/**
 * The one place deciding whether a platform message is meant for Herald, from facts every adapter can tell and the
 * channel's trigger settings. Adapters translate their events into MessageFacts; they decide nothing themselves.
 */
import type { ChannelTriggers } from '../conversation/types.ts';

/** What the platform tells of a new message, before anything is decided. */
export interface MessageFacts {
  /** A new message a person wrote: not a bot's, a webhook's or Herald's own, nor a notice of the platform's. */
  fromPerson: boolean;
  /** A direct message to Herald. */
  direct: boolean;
  mentionsHerald: boolean;
  /** A reply to one of Herald's messages. */
  repliesToHerald: boolean;
  /** In a thread Herald opened or has answered in. */
  inHeraldThread: boolean;
  /** Mentions a person, role or group other than Herald: the message is for them. */
  mentionsOthers: boolean;
  /** A recorded voice message (Discord), which the server's voice-note setting may answer. */
  voiceNote?: boolean;
  text: string;
}

/** Why a message is Herald's to answer. */
export type Addressed = 'direct' | 'thread' | 'reply' | 'mention' | 'trigger-word' | 'channel' | 'voice-note';

/** Why Herald answers a message, or undefined to stay quiet: bots never, and where no mention is needed, not a message for someone else. */
export function addressedBy(facts: MessageFacts, triggers: ChannelTriggers): Addressed | undefined {
  if (!facts.fromPerson) return undefined;
  if (facts.direct) return 'direct';
  if (facts.inHeraldThread && (facts.mentionsHerald || !facts.mentionsOthers)) return 'thread';
  if (facts.repliesToHerald) return 'reply';
  if (facts.mentionsHerald) return 'mention';
  if (startsWithTriggerWord(facts.text, triggers.words)) return 'trigger-word';
  if (triggers.answerAll && !facts.mentionsOthers) return 'channel';
  if (facts.voiceNote) return 'voice-note';
  return undefined;
}

const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

/** Whether `text` starts with one of `words` (lower case), ending at a word boundary: "Herald, hi" but not "Heralds". */
export function startsWithTriggerWord(text: string, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const start = text.trimStart().slice(0, 200).toLowerCase();
  return words.some((word) => start.startsWith(word) && !WORD_CHARACTER.test(start.charAt(word.length)));
}
