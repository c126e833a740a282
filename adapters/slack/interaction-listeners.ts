/**
 * Presses of the buttons on Herald's answers (block_actions): 👍/👎 recorded in the store, wherever the answer was
 * written; Stop goes to the core's question flow, which lets the asker or a workspace admin stop the reply on
 * whichever instance writes it. Each press is acknowledged at once (Slack waits three seconds) and handled
 * afterwards; a refusal or a failure is told to the presser alone.
 */
import type { App, BlockAction, BlockElementAction } from '@slack/bolt';
import { PRESS_REFUSALS, type AnswerEditor } from '../../src/platform/platform.ts';
import { FEEDBACK_ACTION, parseFeedbackValue, STOP_ACTION } from './answer-controls.ts';
import type { SlackRuntime } from './runtime.ts';

const FEEDBACK_FAILED = 'Your feedback could not be saved just now; please try again in a moment.';

/** Slack answers carry Stop alone, which edits nothing: the core rewrites answers only for controls Slack never sends. */
const NO_VERSIONS: AnswerEditor = {
  showControls: () => Promise.reject(new Error('Slack answers have no version controls')),
  rewrite: () => Promise.reject(new Error('Slack answers have no version controls')),
};

export function registerInteractionListeners(app: App, rt: SlackRuntime): void {
  app.action<BlockAction>({ type: 'block_actions', action_id: FEEDBACK_ACTION }, async ({ ack, body, action }) => {
    await ack();
    rt.run('feedback', () => recordFeedback(rt, body, action));
  });
  app.action<BlockAction>({ type: 'block_actions', action_id: STOP_ACTION }, async ({ ack, body, action }) => {
    await ack();
    rt.run('stop button', () => stopReply(rt, body, action));
  });
}

async function recordFeedback(rt: SlackRuntime, body: BlockAction, action: BlockElementAction): Promise<void> {
  const vote = parseFeedbackValue('value' in action ? action.value : undefined);
  if (!vote) {
    rt.logger.warn({ user: body.user.id }, 'feedback press without an answer id; ignored');
    return;
  }
  try {
    const outcome = await rt.feedback.record({ platform: 'slack', workspaceId: rt.identity.teamId, userId: body.user.id, ...vote });
    rt.logger.info({ answer: vote.answerId, rating: vote.rating, outcome }, 'feedback recorded');
  } catch (error) {
    rt.logger.warn({ err: error, answer: vote.answerId }, 'feedback not recorded');
    await tellPresser(rt, body, FEEDBACK_FAILED);
  }
}

async function stopReply(rt: SlackRuntime, body: BlockAction, action: BlockElementAction): Promise<void> {
  const questionKey = 'value' in action && typeof action.value === 'string' ? action.value : undefined;
  if (!questionKey) return;
  const presser = body.user.id;
  const outcome = await rt.flow.pressed({
    questionKey,
    action: 'stop',
    userId: presser,
    mayModerate: (await rt.users.get(presser)).isAdmin,
    editor: NO_VERSIONS,
    // Stop asks nothing again, so the question is never read from a press.
    question: async () => undefined,
  });
  rt.logger.info({ question: questionKey, user: presser, outcome }, 'Stop pressed');
  if (outcome === 'refused') await tellPresser(rt, body, PRESS_REFUSALS.refused);
}

/** An ephemeral line in the conversation (and thread) of the pressed message, seen by the presser alone. */
export async function tellPresser(rt: SlackRuntime, body: BlockAction, text: string): Promise<void> {
  const channel = body.channel?.id ?? (body.container as { channel_id?: string }).channel_id;
  if (!channel) return;
  const threadTs = body.message?.thread_ts as string | undefined;
  await rt.api.call('chat.postEphemeral', channel, (c) =>
    c.chat.postEphemeral({ channel, user: body.user.id, text, ...(threadTs && { thread_ts: threadTs }) }),
  );
}
