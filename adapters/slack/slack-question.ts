/**
 * A Slack message as the core's Question: read with its files (in a thread, those it points at when it has none),
 * answered where it belongs.
 */
import type { IncomingMessage } from '../../src/conversation/types.ts';
import type { Question } from '../../src/platform/platform.ts';
import { readMessageFiles } from './incoming-files.ts';
import { messageKey, tsMs } from './message-key.ts';
import { toIncomingMessage } from './normalize.ts';
import type { SlackRuntime } from './runtime.ts';
import { SlackAnswer } from './slack-answer.ts';
import type { SlackMessageEvent } from './slack-event.ts';
import { filesToRead } from './thread-files.ts';

export interface AnswerOptions {
  /** The thread to answer in (and the conversation's key); undefined: a DM's main timeline. */
  threadTs: string | undefined;
  /** Assistant threads show what the bot is doing with setStatus. */
  status?: (text: string) => Promise<void>;
  clearStatus?: () => Promise<void>;
}

export function slackQuestion(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions): Question {
  const { teamId } = rt.identity;
  const { threadTs } = options;
  return {
    key: messageKey(event.channel, event.ts),
    text: event.text ?? '',
    sentAt: tsMs(event.ts),
    read: (signal) => readQuestion(rt, event, threadTs, signal),
    ...(event.user && {
      workspace: rt.history.forQuestion(
        event.user,
        { channel: event.channel, isDirectMessage: event.channel_type === 'im', ...(event.thread_ts && { threadTs: event.thread_ts }) },
        { heraldId: rt.identity.botUserId, questionId: event.ts },
      ),
    }),
    openAnswer: (events) =>
      new SlackAnswer(
        rt,
        {
          target: {
            channel: event.channel,
            ...(threadTs && { threadTs }),
            ...(event.user && { recipient: { userId: event.user, teamId } }),
          },
          questionTs: event.ts,
          ...(options.status && { status: options.status }),
          ...(options.clearStatus && { clearStatus: options.clearStatus }),
        },
        events,
      ),
  };
}

async function readQuestion(rt: SlackRuntime, event: SlackMessageEvent, threadTs: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  const { teamId, botUserId } = rt.identity;
  const files = await readMessageFiles(rt.api, await filesToRead(rt, event), signal);
  return toIncomingMessage(event, { teamId, botUserId, users: rt.users, threadTs, ...files });
}
