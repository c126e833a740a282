import { MessageFlags, Routes, type APIMessage, type REST } from 'discord.js';
import { APPROVAL_ENDS, approvalTitle } from '../../src/platform/approval-arguments.ts';
import type { ApprovalMessage, ApprovalView } from '../../src/platform/platform.ts';
import { approvalButtons } from './approval-buttons.ts';
import { isUnknownMessage } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';

/**
 * An approval posted in the channel (or thread) of the answer, replying to the question: the tool, its arguments in a
 * code block (no pings, no link previews), Approve and Deny; settled by an edit that shows the end, buttons gone.
 */
export async function postApproval(rest: REST, channelId: string, questionId: string, view: ApprovalView): Promise<ApprovalMessage> {
  const body = (header: string) => ({
    content: `${header} \`${approvalTitle(view.title)}\`\n\`\`\`json\n${view.args}\n\`\`\``,
    flags: MessageFlags.SuppressEmbeds,
    allowed_mentions: NO_MENTIONS_BODY,
  });
  const posted = (await rest.post(Routes.channelMessages(channelId), {
    body: {
      ...body('🔐 **Run this tool?** Only the asker can answer:'),
      components: approvalButtons(view.id),
      message_reference: { message_id: questionId, fail_if_not_exists: false },
    },
  })) as APIMessage;
  return {
    settle: async (end) => {
      await rest.patch(Routes.channelMessage(channelId, posted.id), { body: { ...body(`${APPROVAL_ENDS[end]}:`), components: [] } });
    },
    remove: async () => {
      await rest.delete(Routes.channelMessage(channelId, posted.id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    },
  };
}
