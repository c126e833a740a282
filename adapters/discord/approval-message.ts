import { MessageFlags, Routes, type APIMessage, type REST } from 'discord.js';
import { APPROVAL_ENDS, approvalTitle } from '../../src/platform/approval-arguments.ts';
import type { ApprovalMessage, ApprovalView } from '../../src/platform/platform.ts';
import { approvalButtons } from './approval-buttons.ts';
import { isUnknownMessage } from './discord-surface.ts';
import type { InteractionReplies } from './interaction-replies.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';

const WAITING = '🔐 **Run this tool?** Only the asker can answer:';

/**
 * An approval posted in the channel (or thread) of the answer, replying to the question: the tool, its arguments in a
 * code block (no pings, no link previews), Approve and Deny; settled by an edit that shows the end, buttons gone.
 */
export async function postApproval(rest: REST, channelId: string, questionId: string, view: ApprovalView): Promise<ApprovalMessage> {
  const posted = (await rest.post(Routes.channelMessages(channelId), {
    body: {
      ...approvalBody(view, WAITING),
      flags: MessageFlags.SuppressEmbeds,
      allowed_mentions: NO_MENTIONS_BODY,
      components: approvalButtons(view.id),
      message_reference: { message_id: questionId, fail_if_not_exists: false },
    },
  })) as APIMessage;
  return {
    settle: async (end) => {
      await rest.patch(Routes.channelMessage(channelId, posted.id), {
        body: {
          ...approvalBody(view, `${APPROVAL_ENDS[end]}:`),
          flags: MessageFlags.SuppressEmbeds,
          allowed_mentions: NO_MENTIONS_BODY,
          components: [],
        },
      });
    },
    remove: async () => {
      await rest.delete(Routes.channelMessage(channelId, posted.id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    },
  };
}

/**
 * An approval among the replies to an interaction (a command's, a message action's), seen by the asker alone where
 * those replies are ephemeral; settled by an edit through the interaction's webhook.
 */
export async function replyApproval(replies: InteractionReplies, view: ApprovalView): Promise<ApprovalMessage> {
  const messageId = await replies.post({ ...approvalBody(view, WAITING), flags: MessageFlags.SuppressEmbeds, components: approvalButtons(view.id) });
  return {
    settle: (end) => replies.edit(messageId, { ...approvalBody(view, `${APPROVAL_ENDS[end]}:`), components: [] }),
  };
}

/** The tool and its arguments in a code block (no pings, no link previews), under `header`. */
function approvalBody(view: ApprovalView, header: string): { content: string } {
  return { content: `${header} \`${approvalTitle(view.title)}\`\n\`\`\`json\n${view.args}\n\`\`\`` };
}
