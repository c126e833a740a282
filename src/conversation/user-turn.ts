import type { IncomingMessage } from './types.ts';

// A whole chat message (Discord's longest is 4000 characters), so "translate this" under a long one gets all of it.
const MAX_QUOTE_CHARS = 4000;
const MAX_NAME_CHARS = 64;

/** A display name safe inside `[…]`: no brackets or line breaks, bounded length. */
export function speakerName(displayName: string): string {
  const clean = displayName
    .replace(/[[\]\r\n]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_NAME_CHARS);
  return clean === '' ? 'someone' : clean;
}

/** The message text with platform mention tokens replaced by `@Name`. */
export function resolveMentions(message: IncomingMessage): string {
  let text = message.text;
  for (const mention of message.mentions ?? []) {
    if (mention.raw) text = text.split(mention.raw).join(`@${mention.displayName}`);
  }
  return text.trim();
}

export interface UserTurnParts {
  /** Transcripts of attached audio, by file name. */
  transcripts?: { name: string; text: string; isVoiceMessage: boolean }[];
  /** One-line descriptions of attached images, e.g. `photo.jpg, 1024x768`. */
  images?: string[];
  /** Attached files' text, each a labelled block (src/conversation/document-input.ts). */
  documents?: string[];
}

/**
 * The text of the user's turn as the model sees it: in shared channels prefixed with `[Name]: `; a quote
 * of the message being replied to (unless it is the bot's own, already in the history); voice-message
 * transcripts in place of the missing text; audio-file transcripts and image notes as labelled lines;
 * attached files' text last.
 */
export function userTurnText(message: IncomingMessage, parts: UserTurnParts = {}): string {
  const lines: string[] = [];
  const reply = message.replyTo;
  if (reply?.text && !reply.isBot) {
    const quote = reply.text.length > MAX_QUOTE_CHARS ? `${reply.text.slice(0, MAX_QUOTE_CHARS)}…` : reply.text;
    lines.push(`(replying to ${speakerName(reply.authorName ?? 'someone')}: "${quote.replace(/\s+/g, ' ')}")`);
  }
  const text = resolveMentions(message);
  if (text) lines.push(text);
  for (const t of parts.transcripts ?? []) {
    lines.push(t.isVoiceMessage ? `(voice message, transcribed) ${t.text}` : `(audio file "${t.name}", transcript) ${t.text}`);
  }
  for (const image of parts.images ?? []) lines.push(`[image: ${image}]`);
  for (const document of parts.documents ?? []) lines.push(document);
  const body = lines.join('\n');
  return message.isDirect ? body : `[${speakerName(message.author.displayName)}]: ${body}`;
}

/** What a message of attachments alone asks: "Describe this image.", "Summarize these files.", or both. */
export function defaultQuestion(images: number, files: number): string {
  const asks: string[] = [];
  if (images > 0) asks.push(images === 1 ? 'describe this image' : 'describe these images');
  if (files > 0) asks.push(files === 1 ? 'summarize this file' : 'summarize these files');
  const question = asks.join(' and ');
  return `${question.charAt(0).toUpperCase()}${question.slice(1)}.`;
}
