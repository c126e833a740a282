import { ButtonStyle, ComponentType, type APIActionRowComponent, type APIButtonComponentWithCustomId } from 'discord.js';
import type { ApprovalPress } from '../../src/platform/platform.ts';

/** `herald-approval:<approved|denied>:<approval id>`, well within Discord's 100 characters. */
const PREFIX = 'herald-approval:';

/** Approve and Deny, for the approval `approvalId`. */
export function approvalButtons(approvalId: string): APIActionRowComponent<APIButtonComponentWithCustomId>[] {
  const button = (
    answer: ApprovalPress['answer'],
    label: string,
    style: APIButtonComponentWithCustomId['style'],
  ): APIButtonComponentWithCustomId => ({
    type: ComponentType.Button,
    custom_id: `${PREFIX}${answer}:${approvalId}`,
    label,
    style,
  });
  return [
    { type: ComponentType.ActionRow, components: [button('approved', 'Approve', ButtonStyle.Success), button('denied', 'Deny', ButtonStyle.Danger)] },
  ];
}

/** The answer and approval a button's custom_id stands for; undefined for any other button. */
export function pressedApproval(customId: string): Pick<ApprovalPress, 'answer' | 'approvalId'> | undefined {
  if (!customId.startsWith(PREFIX)) return undefined;
  const [answer, approvalId] = customId.slice(PREFIX.length).split(':');
  if ((answer !== 'approved' && answer !== 'denied') || !approvalId) return undefined;
  return { answer, approvalId };
}
