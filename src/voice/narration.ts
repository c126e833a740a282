import { narrationText, type NarratedMessage } from './narration-text.ts';

/** A chat message as the adapter sees it, offered to narration. */
export interface ChatMessageForNarration extends NarratedMessage {
  guildId?: string;
  channelId: string;
  /** Whose budget reading it aloud is charged to. */
  authorId: string;
  /** Written by a bot or webhook. */
  fromBot: boolean;
  /** A system message, or the visible trace of a slash command. */
  fromCommand?: boolean;
}

/** Narration of one text channel into one voice channel of a guild. */
export interface Narration {
  textChannelId: string;
  voiceChannelId: string;
  voice?: string;
  style?: string;
}

const COMMAND_PREFIX = /^\s*[/!]\w/;

/** The words to read for a message of the narrated channel, or undefined when it is not narrated. */
export function narrationFor(narration: Narration, message: ChatMessageForNarration): string | undefined {
  if (message.channelId !== narration.textChannelId) return undefined;
  if (message.fromBot || message.fromCommand || COMMAND_PREFIX.test(message.text)) return undefined;
  const text = narrationText(message);
  return text === '' ? undefined : text;
}
