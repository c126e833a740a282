import { slackErrorCode, type SlackApi } from './slack-api.ts';

/** Deletes Herald's messages in a channel; one already deleted is left at that. */
export async function deleteMessages(api: SlackApi, channel: string, messageTs: readonly string[]): Promise<void> {
  for (const ts of messageTs) {
    await api
      .call('chat.delete', channel, (c) => c.chat.delete({ channel, ts }))
      .catch((error: unknown) => {
        if (slackErrorCode(error) !== 'message_not_found') throw error;
      });
  }
}
