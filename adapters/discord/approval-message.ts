import { MessageFlags, Routes, type APIMessage, type REST } from 'discord.js';
import type { ApprovalEnd, ApprovalMessage, ApprovalView } from '../../src/platform/platform.ts';
import { approvalButtons } from './approval-buttons.ts';
import { isUnknownMessage } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';

/** Longest tool title shown; a title is the tool's own text, so it goes in inline code with its backticks dropped. */
const MAX_TITLE = 100;

const ENDS: Readonly<Record<ApprovalEnd, string>> = {
  approved: '✅ Approved',
  denied: '🚫 Denied',
  expired: '⌛ Not answered in time, so denied',
  cancelled: '✖️ Cancelled',
};

/**
 * An approval posted in the channel (or thread) of the answer, replying to the question: the tool, its arguments in a
 * code block (no pings, no link previews), Approve and Deny; settled by an edit that shows the end, buttons gone.
 */
export async function postApproval(rest: REST, channelId: string, questionId: string, view: ApprovalView): Promise<ApprovalMessage> {
  const body = (header: string) => ({
    content: `${header} \`${title(view.title)}\`\n\`\`\`json\n${view.args}\n\`\`\``,
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
      await rest.patch(Routes.channelMessage(channelId, posted.id), { body: { ...body(`${ENDS[end]}:`), components: [] } });
    },
    remove: async () => {
      await rest.delete(Routes.channelMessage(channelId, posted.id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    },
  };
}

function title(text: string): string {
  const plain = text.replaceAll('`', "'").replace(/\s+/g, ' ').trim();
  return plain.length <= MAX_TITLE ? plain : `${plain.slice(0, MAX_TITLE - 1)}…`;
}
