import type { AnswerStatus, MarkStatus } from '../../src/platform/status-reactions.ts';
import { slackErrorCode, type SlackApi } from './slack-api.ts';

const EMOJI: Record<AnswerStatus, string> = { received: 'eyes', done: 'white_check_mark', failed: 'warning' };

/** Status reactions on a Slack message (reactions.add / reactions.remove): :eyes: while it is answered, then :white_check_mark: or :warning:. */
export function slackStatusMark(api: SlackApi, channel: string, ts: string): MarkStatus {
  const react = async (method: 'add' | 'remove', name: string) => {
    try {
      await api.call(`reactions.${method}`, channel, (client) => client.reactions[method]({ channel, timestamp: ts, name }));
    } catch (error) {
      // Set already, or already gone: what was wanted is so (another delivery of the question, a person's removal).
      const code = slackErrorCode(error);
      if (code !== 'already_reacted' && code !== 'no_reaction') throw error;
    }
  };
  return async (status) => {
    if (status !== 'received') await react('remove', EMOJI.received);
    await react('add', EMOJI[status]);
  };
}
