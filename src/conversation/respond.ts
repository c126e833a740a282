import { CancelledError, describeError } from '../errors.ts';
import type { Logger } from '../log/logger.ts';
import { conversationId, conversationKeyOf } from './conversation-key.ts';
import { ReplyChannel } from './reply-channel.ts';
import type { TurnContext } from './turn-context.ts';
import type { HandleOptions, IncomingMessage, ReplyEvent, ReplyRecord, ReplyStream } from './types.ts';
import { emptyUsage } from './usage-meter.ts';

export interface RespondDeps {
  logger: Logger;
  /** Told about every finished reply (metrics). */
  onReply?: (record: ReplyRecord) => void;
}

/**
 * The reply to one message as a stream: `work` runs at once and emits its events; a failure is shown as an error
 * event (unless the work was superseded), `done` always ends it, and the finished reply is reported for metrics.
 */
export function respond(
  deps: RespondDeps,
  message: IncomingMessage,
  options: HandleOptions,
  capability: ReplyRecord['capability'],
  work: (turn: TurnContext, supersede: (reason: CancelledError) => void) => Promise<void>,
): ReplyStream {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const channel = new ReplyChannel(() => controller.abort(new CancelledError()));
  const started = performance.now();
  let firstTextMs: number | undefined;
  let outcome: ReplyRecord['outcome'] = 'ok';
  let answered = true;
  let superseded = false;
  const key = conversationKeyOf(message);
  const turn: TurnContext = {
    message,
    key,
    conversation: conversationId(key),
    options,
    signal,
    usage: emptyUsage(),
    emit: (event) => {
      if (firstTextMs === undefined && (event.type === 'text' || event.type === 'transcript')) firstTextMs = performance.now() - started;
      if (event.type === 'error') outcome = event.code;
      if (event.type === 'replacement') answered = event.replaced;
      channel.push(event);
    },
  };
  const supersede = (reason: CancelledError) => {
    superseded = true;
    outcome = 'cancelled';
    controller.abort(reason);
  };
  work(turn, supersede)
    .catch((error: unknown) => {
      if (!superseded) turn.emit(errorEvent(deps.logger, error, signal, message));
    })
    .finally(() => {
      turn.emit({ type: 'done', usage: turn.usage, ...(turn.finishReason !== undefined && { finishReason: turn.finishReason }) });
      channel.end();
      if (!answered) return;
      deps.onReply?.({
        platform: message.platform,
        capability,
        outcome,
        ...(firstTextMs !== undefined && { firstTextMs }),
        durationMs: performance.now() - started,
        usage: turn.usage,
      });
    });
  return channel;
}

/** A failure as the asker is told it, logged where it is Herald's or the service's fault. */
function errorEvent(logger: Logger, error: unknown, signal: AbortSignal, message: IncomingMessage): ReplyEvent {
  const report = describeError(signal.aborted ? new CancelledError() : error);
  const where = { err: error, platform: message.platform, channel: message.channelId };
  if (report.kind === 'internal') logger.error(where, 'reply failed');
  else if (report.kind === 'service') logger.warn(where, 'service request failed');
  const { kind, ...shown } = report;
  return { type: 'error', code: kind, ...shown };
}
