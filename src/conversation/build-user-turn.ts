import { MediaError } from '../errors.ts';
import type { ChatMessage } from '../service/types.ts';
import { readDocuments, type DocumentInput } from './document-input.ts';
import {
  prepareImages,
  transcribeAll,
  UNKNOWN_IMAGE_TOKENS,
  type AudioTranscript,
  type PrepareAudioFunction,
  type PrepareImageFunction,
  type TranscribeFunction,
} from './media-input.ts';
import type { TurnContext } from './turn-context.ts';
import type { IncomingMessage, ReplyEvent } from './types.ts';
import { defaultQuestion, resolveMentions, userTurnText } from './user-turn.ts';

export interface UserTurnDeps {
  transcribe?: TranscribeFunction;
  prepareImage?: PrepareImageFunction;
  prepareAudio?: PrepareAudioFunction;
  /** Attached files' text may take up to this many tokens. */
  documentTokens: number;
}

/** A message turned into what the model is asked, and what the history keeps of it. */
export interface UserTurn {
  kind: 'question';
  /** Sent to the model: text, with image parts when there are images. */
  message: ChatMessage;
  /** Kept in the history: image parts replaced by one-line notes. */
  stored: ChatMessage;
  /** The turn carries pictures, so the vision model answers it. */
  hasImages: boolean;
  imageTokens: (url: string) => number;
  /** Notices about the files (skipped, truncated), shown after the answer. */
  notices: ReplyEvent[];
}

/** Audio sent without a question: the transcripts are the whole answer, stored as this exchange. */
export interface TranscriptTurn {
  kind: 'transcript';
  messages: ChatMessage[];
}

/** Reads the message's files, transcribes its audio and prepares its images into one user turn. */
export async function buildUserTurn(turn: TurnContext, deps: UserTurnDeps): Promise<UserTurn | TranscriptTurn> {
  const { message, emit } = turn;
  const audio = message.audio ?? [];
  const asked = resolveMentions(message);

  const files = message.documents?.length ? await readFiles(turn, deps.documentTokens) : undefined;
  if (files && files.blocks.length === 0 && asked === '' && !message.images?.length && audio.length === 0) {
    throw new MediaError(files.skipped.join('\n'), { code: 'unsupported_format' });
  }
  const documents = files?.blocks ?? [];
  // A scanned PDF's pages come as pictures: the vision model reads them with the message's own images.
  const images = [...(message.images ?? []), ...(files?.images ?? [])];

  const transcripts =
    audio.length > 0
      ? await transcribeAll(audio, {
          transcribe: deps.transcribe,
          prepareAudio: deps.prepareAudio,
          language: turn.options.overrides?.language,
          signal: turn.signal,
          usage: turn.usage,
          emit,
        })
      : [];
  const transcriptOnly = message.flags?.transcriptOnly || (asked === '' && documents.length === 0 && audio.every((a) => !a.isVoiceMessage));
  if (audio.length > 0 && images.length === 0 && transcriptOnly) return transcriptTurn(message, transcripts);

  // Attachments alone ask for a description or a summary; a voice message asks its own question about files.
  const spoken = transcripts.some((t) => t.isVoiceMessage);
  const question =
    asked === '' && (images.length > 0 || (documents.length > 0 && !spoken))
      ? { ...message, text: defaultQuestion(message.images?.length ?? 0, spoken ? 0 : documents.length) }
      : message;
  const notices = files?.notices ?? [];
  const text = userTurnText(question, { transcripts, documents });
  if (images.length === 0) {
    const user: ChatMessage = { role: 'user', content: text };
    return { kind: 'question', message: user, stored: user, hasImages: false, imageTokens: () => UNKNOWN_IMAGE_TOKENS, notices };
  }
  emit({ type: 'status', phase: 'looking', text: 'looking at the image…' });
  const prepared = await prepareImages(images, deps.prepareImage);
  return {
    kind: 'question',
    message: { role: 'user', content: [{ type: 'text', text }, ...prepared.parts] },
    stored: { role: 'user', content: userTurnText(question, { transcripts, images: prepared.notes, documents }) },
    hasImages: true,
    imageTokens: (url) => prepared.tokensByUrl.get(url) ?? UNKNOWN_IMAGE_TOKENS,
    notices,
  };
}

function readFiles(turn: TurnContext, documentTokens: number): Promise<DocumentInput> {
  const count = turn.message.documents?.length ?? 0;
  turn.emit({ type: 'status', phase: 'reading', text: count === 1 ? 'reading the file…' : 'reading the files…' });
  return readDocuments(turn.message.documents ?? [], documentTokens);
}

function transcriptTurn(message: IncomingMessage, transcripts: AudioTranscript[]): TranscriptTurn {
  const names = transcripts.map((t) => `"${t.name}"`).join(', ');
  return {
    kind: 'transcript',
    messages: [
      { role: 'user', content: userTurnText({ ...message, text: `Please transcribe ${names}.` }) },
      { role: 'assistant', content: transcripts.map((t) => `Transcript of "${t.name}":\n${t.text}`).join('\n\n') },
    ],
  };
}
