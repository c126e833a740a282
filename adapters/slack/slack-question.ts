/**
 * A Slack message as the core's Question: read with its files (in a thread, those it points at when it has none),
 * answered where it belongs.
 */
import type { Context } from '@slack/bolt';
import type { IncomingMessage } from '../../src/conversation/types.ts';
import type { Question, Reviver } from '../../src/platform/platform.ts';
import { withStatusReactions } from '../../src/platform/status-reactions.ts';
import { assistantStatus } from './assistant-status.ts';
import { deleteMessages } from './delete-messages.ts';
import { readMessageFiles } from './incoming-files.ts';
import { messageKey, tsMs, tsOfKey } from './message-key.ts';
import { toIncomingMessage } from './normalize.ts';
import type { SlackRuntime } from './runtime.ts';
import { SlackAnswer } from './slack-answer.ts';
import type { SlackMessageEvent } from './slack-event.ts';
import { slackStatusMark } from './status-reactions.ts';
import { filesToRead } from './thread-files.ts';

/** Where and how a question is answered: plain values, kept with a reply in progress for another instance to finish it. */
export interface AnswerOptions {
  /** The thread to answer in (and the conversation's key); undefined: a DM's main timeline. */
  threadTs: string | undefined;
  /** An assistant thread: it shows what Herald is doing with setStatus. */
  assistant?: boolean;
  /** The channel's admins asked for status reactions on questions. */
  statusReactions?: boolean;
}

/** What another instance rebuilds the question from, should this one die answering it: no Slack call needed. */
export interface SlackRevival {
  event: SlackMessageEvent;
  options: AnswerOptions;
}

const REDELIVERED = 'heraldRedelivered';

/** Marks an event Slack retried after its first delivery was taken: its question goes to the core as delivered again. */
export function markRedelivered(context: Context): void {
  context[REDELIVERED] = true;
}

export function redelivered(context: Context): boolean {
  return context[REDELIVERED] === true;
}

export function slackQuestion(rt: SlackRuntime, event: SlackMessageEvent, options: AnswerOptions): Question {
  const { teamId } = rt.identity;
  const { threadTs } = options;
  const status = options.assistant && threadTs ? assistantStatus(rt.api, event.channel, threadTs) : undefined;
  const revival: SlackRevival = { event, options };
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
    openAnswer: (events) => {
      const answer = new SlackAnswer(
        rt,
        {
          target: {
            channel: event.channel,
            ...(threadTs && { threadTs }),
            ...(event.user && { recipient: { userId: event.user, teamId } }),
          },
          questionTs: event.ts,
          ...(status && { status, clearStatus: () => status('') }),
        },
        events,
      );
      return options.statusReactions ? withStatusReactions(answer, slackStatusMark(rt.api, event.channel, event.ts), rt.logger) : answer;
    },
    revival,
  };
}

async function readQuestion(rt: SlackRuntime, event: SlackMessageEvent, threadTs: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
  const { teamId, botUserId } = rt.identity;
  const files = await readMessageFiles(rt.api, await filesToRead(rt, event), signal);
  return toIncomingMessage(event, { teamId, botUserId, users: rt.users, threadTs, ...files });
}

/**
 * Questions rebuilt from their revival alone (the event as Slack delivered it): Slack's history reads are rate-limited,
 * and the event already holds what answering needs.
 */
export function slackReviver(rt: SlackRuntime): Reviver {
  return {
    question: async (revival) => {
      const stored = slackRevival(revival);
      return stored && slackQuestion(rt, stored.event, stored.options);
    },
    // A message left streaming cannot be said to be interrupted: it goes.
    interrupted: async (revival, messageKeys) => {
      const stored = slackRevival(revival);
      if (stored) await deleteMessages(rt.api, stored.event.channel, messageKeys.map(tsOfKey));
    },
  };
}

function slackRevival(value: unknown): SlackRevival | undefined {
  const stored = value as Partial<SlackRevival> | undefined;
  return typeof stored?.event?.channel === 'string' && typeof stored.event.ts === 'string' && stored.options ? (stored as SlackRevival) : undefined;
}
