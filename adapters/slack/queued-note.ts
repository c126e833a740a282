import type { NoteLine } from '../../src/platform/queued-note.ts';
import { deleteMessages } from './delete-messages.ts';
import type { ReplyTarget } from './reply-part.ts';
import type { SlackApi } from './slack-api.ts';

/** The queued note's line on Slack: a message in the question's thread. */
export function queuedNoteLine(api: SlackApi, target: ReplyTarget): NoteLine {
  const { channel, threadTs } = target;
  return {
    post: async (text) => {
      const posted = await api.call('chat.postMessage', channel, (c) =>
        c.chat.postMessage({ channel, text, ...(threadTs && { thread_ts: threadTs }) }),
      );
      return String(posted.ts);
    },
    remove: (ts) => deleteMessages(api, channel, [ts]),
  };
}
