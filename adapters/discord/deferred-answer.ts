import type { ReplyStream } from '../../src/conversation/types.ts';
import type { AnswerWriter, ApprovalMessage, ApprovalView, WrittenAnswer } from '../../src/platform/platform.ts';

/** An answer whose place is made first (a thread opened for it): every call waits for the writer there. */
export class DeferredAnswer implements AnswerWriter {
  readonly #writer: Promise<AnswerWriter>;

  /** `writer` never rejects: where the place cannot be made, it is a writer in the question's own channel. */
  constructor(writer: Promise<AnswerWriter>) {
    this.#writer = writer;
  }

  async write(stream: ReplyStream, signal: AbortSignal): Promise<WrittenAnswer> {
    return (await this.#writer).write(stream, signal);
  }

  async remove(messageKeys: readonly string[]): Promise<void> {
    await (await this.#writer).remove?.(messageKeys);
  }

  async askApproval(view: ApprovalView): Promise<ApprovalMessage> {
    const writer = await this.#writer;
    if (!writer.askApproval) throw new Error('this answer cannot show an approval');
    return writer.askApproval(view);
  }

  async fail(error: unknown): Promise<void> {
    await (await this.#writer).fail(error);
  }

  async close(): Promise<void> {
    await (await this.#writer).close();
  }
}
