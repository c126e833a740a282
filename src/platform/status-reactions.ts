import type { ReplyEvent, ReplyStream } from '../conversation/types.ts';
import type { Logger } from '../log/logger.ts';
import type { AnswerWriter, WrittenAnswer } from './platform.ts';

/** A question's state as its status reactions show it: 👀 received, ✅ done, ⚠️ failed. */
export type AnswerStatus = 'received' | 'done' | 'failed';

/** Sets the reaction for `status` on the question (an adapter write); a later status replaces the earlier one. */
export type MarkStatus = (status: AnswerStatus) => Promise<void>;

/**
 * An answer whose question shows its progress as reactions: received at once, then done or failed (an error the
 * engine reported, or a failure told to the asker) when the answer is over; a question withdrawn meanwhile (deleted)
 * gets no more marks. A reaction that cannot be set is logged and the answer goes on; the marks are set in order.
 */
export function withStatusReactions(writer: AnswerWriter, mark: MarkStatus, logger: Logger): AnswerWriter {
  let failed = false;
  let withdrawn = false;
  let marks = Promise.resolve();
  const show = (status: AnswerStatus) => {
    marks = marks.then(() => mark(status)).catch((error: unknown) => logger.warn({ err: error, status }, 'could not set a status reaction'));
    return marks;
  };
  void show('received');
  async function* watched(stream: ReplyStream): AsyncGenerator<ReplyEvent> {
    for await (const event of stream) {
      if (event.type === 'error') failed = true;
      yield event;
    }
  }
  return {
    async write(stream, signal): Promise<WrittenAnswer> {
      const written = await writer.write(watched(stream), signal);
      withdrawn = written.stopped === 'aborted';
      return written;
    },
    ...(writer.remove && { remove: writer.remove.bind(writer) }),
    ...(writer.askApproval && { askApproval: writer.askApproval.bind(writer) }),
    fail(error) {
      failed = true;
      return writer.fail(error);
    },
    async close() {
      await writer.close();
      if (!withdrawn) await show(failed ? 'failed' : 'done');
    },
  };
}
