/**
 * An approval as Block Kit: the tool and its arguments (a code block in mrkdwn, escaped so no text in it is a mention or
 * a link), and Approve / Deny buttons whose value is the approval's id, so any instance can take the press.
 */
import { APPROVAL_ENDS, approvalTitle } from '../../src/platform/approval-arguments.ts';
import type { ApprovalEnd, ApprovalPress, ApprovalView } from '../../src/platform/platform.ts';
import { escapeMrkdwn } from './mrkdwn.ts';

export const APPROVE_ACTION = 'herald_approve';
export const DENY_ACTION = 'herald_deny';

/** A section's text holds 3000 characters; the title and the fence take the rest. */
const MAX_ARGS_CHARS = 2800;

interface Section {
  type: 'section';
  text: { type: 'mrkdwn'; text: string };
}

interface Buttons {
  type: 'actions';
  elements: Array<{ type: 'button'; action_id: string; text: { type: 'plain_text'; text: string }; value: string; style: 'primary' | 'danger' }>;
}

export interface ApprovalContent {
  /** The notification text beside the blocks. */
  text: string;
  blocks: Array<Section | Buttons>;
}

/** The approval while it waits: the tool, its arguments, Approve and Deny. */
export function waitingApproval(view: ApprovalView): ApprovalContent {
  const content = approvalContent(view, '🔐 *Run this tool?* Only the asker can answer:');
  const button = (action_id: string, text: string, style: 'primary' | 'danger') => ({
    type: 'button' as const,
    action_id,
    text: { type: 'plain_text' as const, text },
    value: view.id,
    style,
  });
  return {
    ...content,
    blocks: [...content.blocks, { type: 'actions', elements: [button(APPROVE_ACTION, 'Approve', 'primary'), button(DENY_ACTION, 'Deny', 'danger')] }],
  };
}

/** The approval once it ended: how, and what it was about; no buttons. */
export function settledApproval(view: ApprovalView, end: ApprovalEnd): ApprovalContent {
  return approvalContent(view, `${APPROVAL_ENDS[end]}:`);
}

/** An approval only its asker sees, once it ended: one line, as it cannot be edited (see approval-message.ts). */
export function privateEnd(text: string): ApprovalContent {
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** What an approval only its asker sees shows once pressed: the press's response_url replaces it with this. */
export function answeredPrivately(answer: ApprovalPress['answer']): ApprovalContent {
  return privateEnd(APPROVAL_ENDS[answer]);
}

/** The answer and approval a pressed button stands for; undefined for anything else. */
export function pressedApproval(actionId: string, value: unknown): Pick<ApprovalPress, 'answer' | 'approvalId'> | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (actionId === APPROVE_ACTION) return { answer: 'approved', approvalId: value };
  if (actionId === DENY_ACTION) return { answer: 'denied', approvalId: value };
  return undefined;
}

function approvalContent(view: ApprovalView, header: string): ApprovalContent {
  let args = escapeMrkdwn(view.args);
  if (args.length > MAX_ARGS_CHARS) args = `${args.slice(0, MAX_ARGS_CHARS).replace(/&[a-z]*$/, '')}\n…`;
  const heading = `${header} \`${escapeMrkdwn(approvalTitle(view.title))}\``;
  return {
    text: heading,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: heading } },
      { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${args}\`\`\`` } },
    ],
  };
}
