import type { ReplyStream, ReplyUsage, StatusPhase } from '../conversation/types.ts';
import type { Citation } from '../service/types.ts';
import { StreamingReply, type StreamingReplyOptions } from './streaming-reply.ts';
import { describeError } from '../errors.ts';
import { MessageGoneError, type ReplySurface } from './surface.ts';

export interface RenderedAttachment {
  name: string;
  mime: string;
  data: Buffer;
}

/** Everything a reply produced besides its streamed text, for the adapter's final touches. */
export interface RenderedReply {
  /** The text shown, across every message. */
  text: string;
  /** Handles of the messages that hold it, in order. */
  messages: string[];
  citations: Citation[];
  reasoning: string;
  attachments: RenderedAttachment[];
  transcripts: Array<{ name: string; text: string }>;
  error?: { code: string; message: string; retryAfterMs?: number };
  usage?: ReplyUsage;
  /**
   * The reply was stopped before its end and its messages left as they were: `deleted` when a message of it was
   * deleted (the surface said so, or the signal was aborted with a MessageGoneError), `aborted` by the signal.
   */
  stopped?: 'deleted' | 'aborted';
}

export interface RenderHooks {
  /** The bot is working (typing indicator, assistant status); called when the phase changes. */
  status?(phase: StatusPhase, text: string): void | Promise<void>;
  /** The reply stream itself failed (a bug or a lost dependency); for the adapter's log. */
  failed?(error: unknown): void;
}

export interface RenderOptions extends StreamingReplyOptions {
  /** Formats a transcript shown ahead of the answer; default: a quoted block. */
  formatTranscript?(name: string, text: string): string;
  /** Shown when a reply ends without any text, attachment or error. */
  emptyText?: string;
  /** Stops the reply where it is: the stream is cancelled and nothing more is shown or edited. */
  signal?: AbortSignal;
}

const defaultTranscript = (name: string, text: string) =>
  `🎙️ **${name}**\n${text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')}\n\n`;

/**
 * Renders the core's reply stream on a surface: status to the hooks, text streamed (transcripts first,
 * notices and errors as closing lines), and the rest collected for the adapter. A failure of the stream
 * itself ends the text with a short error line, so no message is left half-written. A message of the reply
 * deleted meanwhile, or the signal, stops it at once: the stream is cancelled (which aborts the service request)
 * and `stopped` says why, with no closing line.
 */
export async function renderReply(
  stream: ReplyStream,
  surface: ReplySurface,
  hooks: RenderHooks = {},
  options: RenderOptions = {},
): Promise<RenderedReply> {
  const reply = new StreamingReply(surface, options);
  const formatTranscript = options.formatTranscript ?? defaultTranscript;
  const result: RenderedReply = { text: '', messages: [], citations: [], reasoning: '', attachments: [], transcripts: [] };
  let lastPhase: StatusPhase | undefined;
  let atLineStart = true;
  const write = (text: string) => {
    reply.append(text);
    atLineStart = text.endsWith('\n');
  };
  const closingLine = (text: string) => write(`${reply.text === '' ? '' : atLineStart ? '\n' : '\n\n'}${text}`);

  const events = stream[Symbol.asyncIterator]();
  let stopReason: RenderedReply['stopped'];
  let wake!: () => void;
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const stop = (reason: NonNullable<RenderedReply['stopped']>) => {
    stopReason ??= reason;
    wake();
  };
  void reply.deleted.then(() => stop('deleted'));
  const signal = options.signal;
  const onAbort = () => stop(signal?.reason instanceof MessageGoneError ? 'deleted' : 'aborted');
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  try {
    for (;;) {
      const next = await Promise.race([stopped, events.next()]);
      // An event that arrived together with the stop (the engine's own "cancelled" among them) is not shown.
      if (stopReason !== undefined || next === undefined || next.done) break;
      const event = next.value;
      switch (event.type) {
        case 'status':
          if (event.phase !== lastPhase) {
            lastPhase = event.phase;
            await hooks.status?.(event.phase, event.text);
          }
          break;
        case 'text':
          write(event.delta);
          break;
        case 'reasoning':
          result.reasoning += event.delta;
          break;
        case 'citations':
          result.citations = event.citations;
          break;
        case 'transcript':
          result.transcripts.push({ name: event.name, text: event.text });
          write(formatTranscript(event.name, event.text));
          break;
        case 'attachment':
          result.attachments.push({ name: event.name, mime: event.mime, data: event.data });
          break;
        case 'notice':
          closingLine(`_${escapeEmphasis(event.text)}_`);
          break;
        case 'error':
          result.error = { code: event.code, message: event.message, retryAfterMs: event.retryAfterMs };
          closingLine(`⚠️ ${event.message}`);
          break;
        case 'done':
          result.usage = event.usage;
          break;
      }
    }
  } catch (error) {
    const report = describeError(error);
    result.error = { code: report.kind, message: report.message };
    closingLine(`⚠️ ${result.error.message}`);
    hooks.failed?.(error);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (stopReason !== undefined) {
    result.stopped = stopReason;
    // Not awaited: an async generator finishes a pending step before it returns; the engine's stream cancels at once.
    Promise.resolve(events.return?.()).catch(() => {});
    result.messages = await reply.abandon();
    result.text = reply.text;
    return result;
  }
  if (reply.text.trim() === '' && result.attachments.length === 0 && !result.error && options.emptyText) {
    write(options.emptyText);
  }
  result.messages = await reply.finish();
  result.text = reply.text;
  if (reply.wasDeleted) result.stopped = 'deleted';
  return result;
}

/** A notice is shown in italics: a file name such as my_notes.txt inside it must not end them early. */
function escapeEmphasis(text: string): string {
  return text.replace(/[\\*_~]/g, (c) => `\\${c}`);
}
