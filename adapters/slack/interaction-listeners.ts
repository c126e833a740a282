/**
 * Presses of the buttons on Herald's answers (block_actions): 👍/👎 recorded in the store, wherever the answer was
 * written; Stop, for the asker or a workspace admin, stops the reply being written. Each press is acknowledged at
 * once (Slack waits three seconds) and handled afterwards; a refusal or a failure is told to the presser alone.
 */
import type { App, BlockAction, BlockElementAction } from '@slack/bolt';
import { FEEDBACK_ACTION, parseFeedbackValue, STOP_ACTION } from './answer-controls.ts';
import type { SlackRuntime } from './runtime.ts';

const ONLY_THE_ASKER = 'Only the asker can do that.';
const FEEDBACK_FAILED = 'Your feedback could not be saved just now; please try again in a moment.';

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
  const reply = questionKey === undefined ? undefined : rt.live.get(questionKey);
  // Over already: the button is on its way out with the reply's last edit.
  if (!reply) return;
  const presser = body.user.id;
  if (presser !== reply.askerId && !(await rt.users.isAdmin(presser))) {
    rt.logger.info({ question: questionKey, user: presser }, 'stop refused: not the asker');
    await tellPresser(rt, body, ONLY_THE_ASKER);
    return;
  }
  rt.logger.info({ question: questionKey, user: presser }, 'reply stopped by a press of Stop');
  reply.stop();
}

/** An ephemeral line in the conversation (and thread) of the pressed message, seen by the presser alone. */
async function tellPresser(rt: SlackRuntime, body: BlockAction, text: string): Promise<void> {
  const channel = body.channel?.id ?? (body.container as { channel_id?: string }).channel_id;
  if (!channel) return;
  const threadTs = body.message?.thread_ts as string | undefined;
  await rt.api.call('chat.postEphemeral', channel, (c) =>
    c.chat.postEphemeral({ channel, user: body.user.id, text, ...(threadTs && { thread_ts: threadTs }) }),
  );
}
