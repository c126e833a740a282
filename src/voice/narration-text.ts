/** A message to read aloud, as the platform adapter describes it. */
export interface NarratedMessage {
  /** The author's display name in the server. */
  authorName: string;
  /** The text with mentions already shown as names (e.g. "@Alice", "#general"). */
  text: string;
  attachments: readonly { name: string; contentType?: string }[];
  stickers?: number;
}

const MAX_SPOKEN_CHARS = 400;

type AttachmentKind = 'image' | 'video' | 'audio' | 'file';
const KIND_NAMES: Record<AttachmentKind, [string, string]> = {
  image: ['an image', 'images'],
  video: ['a video', 'videos'],
  audio: ['an audio clip', 'audio clips'],
  file: ['a file', 'files'],
};
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

function attachmentKind(attachment: { name: string; contentType?: string }): AttachmentKind {
  const type = attachment.contentType?.split('/')[0];
  if (type === 'image' || type === 'video' || type === 'audio') return type;
  const ext = /\.([a-z0-9]+)$/i.exec(attachment.name)?.[1]?.toLowerCase() ?? '';
  if (/^(png|jpe?g|gif|webp|bmp|heic|avif)$/.test(ext)) return 'image';
  if (/^(mp4|mov|webm|mkv)$/.test(ext)) return 'video';
  if (/^(mp3|ogg|oga|opus|wav|m4a|flac)$/.test(ext)) return 'audio';
  return 'file';
}

/** "2 images and a file": attachments and stickers in a few words, or '' when there are none. */
export function summarizeAttachments(message: Pick<NarratedMessage, 'attachments' | 'stickers'>): string {
  const counts = new Map<AttachmentKind, number>();
  for (const attachment of message.attachments) {
    const kind = attachmentKind(attachment);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, count]) => {
    const [one, many] = KIND_NAMES[kind];
    return count === 1 ? one : `${NUMBER_WORDS[count] ?? count} ${many}`;
  });
  const stickers = message.stickers ?? 0;
  if (stickers > 0) parts.push(stickers === 1 ? 'a sticker' : `${NUMBER_WORDS[stickers] ?? stickers} stickers`);
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function linkName(url: string): string {
  try {
    return `a link to ${new URL(url).hostname.replace(/^www\./, '')}`;
  } catch {
    return 'a link';
  }
}

/** Chat markup turned into words worth hearing: no code, spoilers, raw links or formatting marks. */
export function speakableText(text: string): string {
  const spoken = text
    .replace(/```[\s\S]*?(```|$)/g, ' a code block. ')
    .replace(/\|\|[\s\S]*?\|\|/g, ' a spoiler ')
    .replace(/<a?:(\w+):\d+>/g, ' $1 ')
    .replace(/<t:\d+(:[a-zA-Z])?>/g, ' a time ')
    .replace(/<?(https?:\/\/[^\s>]+)>?/g, (_m, url: string) => ` ${linkName(url)} `)
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(?<![\w*~])(\*\*|__|~~|\*|_)(?=\S)([\s\S]*?\S)\1(?![\w*~])/g, '$2') // emphasis marks in pairs; a lone * stays (2 * 3)
    .replace(/^\s*(#{1,3}|>>>|>|-#)\s+/gm, '')
    .replace(/(^|\s)[@#](?=[^\s@#])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (spoken.length <= MAX_SPOKEN_CHARS) return spoken;
  const cut = spoken.slice(0, MAX_SPOKEN_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_SPOKEN_CHARS / 2)).replace(/[\s,;:.]+$/, '')}, and so on.`;
}

/** What narration says for a message: the author's name, then the text, then its attachments in a few words. */
export function narrationText(message: NarratedMessage): string {
  const text = speakableText(message.text);
  const extras = summarizeAttachments(message);
  if (text === '') return extras === '' ? '' : `${message.authorName} sent ${extras}.`;
  const ending = /[.!?…。！？]$/.test(text) ? '' : '.';
  return extras === '' ? `${message.authorName} says: ${text}${ending}` : `${message.authorName} says: ${text}${ending} And ${extras}.`;
}

/** Spoken before the next narrated message when older ones were dropped to keep up. */
export function skippedNotice(count: number): string {
  return count === 1 ? 'Skipped one older message.' : `Skipped ${NUMBER_WORDS[count] ?? count} older messages.`;
}
