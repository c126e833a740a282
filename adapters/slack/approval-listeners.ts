/**
 * Presses of Approve and Deny on an approval (block_actions), handed to the core's question flow, which lets only the
 * asker answer and reaches the instance waiting for it. Acknowledged at once; a press that does not count is told to
 * the presser alone, and one that does replaces an approval only its asker sees.
 */
import type { App, BlockAction, BlockElementAction, RespondFn } from '@slack/bolt';
import { APPROVAL_REFUSALS } from '../../src/platform/platform.ts';
import { answeredPrivately, APPROVE_ACTION, DENY_ACTION, pressedApproval } from './approval-blocks.ts';
import { tellPresser } from './interaction-listeners.ts';
import type { SlackRuntime } from './runtime.ts';

export function registerApprovalListeners(app: App, rt: SlackRuntime): void {
  for (const actionId of [APPROVE_ACTION, DENY_ACTION]) {
    app.action<BlockAction>({ type: 'block_actions', action_id: actionId }, async ({ ack, body, action, respond }) => {
      await ack();
      rt.run('approval button', () => answerApproval(rt, body, action, respond));
    });
  }
}

async function answerApproval(rt: SlackRuntime, body: BlockAction, action: BlockElementAction, respond: RespondFn): Promise<void> {
  const pressed = pressedApproval(action.action_id, 'value' in action ? action.value : undefined);
  if (!pressed) return;
  const outcome = await rt.flow.approvalPressed({ ...pressed, userId: body.user.id });
  rt.logger.info({ approval: pressed.approvalId, answer: pressed.answer, user: body.user.id, outcome }, 'approval pressed');
  if (outcome !== 'done') await tellPresser(rt, body, APPROVAL_REFUSALS[outcome]);
  // Nobody can edit an ephemeral approval but this press, through its response_url.
  else if (body.container.is_ephemeral === true) await respond({ replace_original: true, ...answeredPrivately(pressed.answer) });
}
