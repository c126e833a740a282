import type { ApprovalMessage, ApprovalView } from '../../src/platform/platform.ts';
import { privateEnd, settledApproval, waitingApproval, type ApprovalContent } from './approval-blocks.ts';
import { deleteMessages } from './delete-messages.ts';
import { postEphemeralBlocks, type EphemeralTarget } from './ephemeral-reply.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackApi } from './slack-api.ts';

/** Posts an approval where the answer goes (its thread), without link previews; settled by chat.update, buttons gone. */
export async function postApproval(api: SlackApi, target: ReplyTarget, view: ApprovalView): Promise<ApprovalMessage> {
  const { channel, threadTs } = target;
  const send = (content: ApprovalContent) => ({ channel, ...content, unfurl_links: false, unfurl_media: false });
  const posted = await api.call('chat.postMessage', channel, (c) =>
    c.chat.postMessage({ ...send(waitingApproval(view)), ...(threadTs && { thread_ts: threadTs }) }),
  );
  const ts = String(posted.ts);
  return {
    settle: async (end) => {
      await api.call('chat.update', channel, (c) => c.chat.update({ ...send(settledApproval(view, end)), ts }));
    },
    remove: () => deleteMessages(api, channel, [ts]),
  };
}

/**
 * An approval only the asker sees (chat.postEphemeral). Slack cannot edit an ephemeral message: a press replaces it
 * through the press's own response_url, wherever it arrives; an approval that ends unpressed says so in a line of its own.
 */
export async function postEphemeralApproval(api: SlackApi, target: EphemeralTarget, view: ApprovalView): Promise<ApprovalMessage> {
  await postEphemeralBlocks(api, target, waitingApproval(view));
  return {
    settle: async (end) => {
      if (end === 'approved' || end === 'denied') return;
      await postEphemeralBlocks(api, target, privateEnd(settledApproval(view, end).text));
    },
  };
}
