import { Routes, type APIMessage, type REST } from 'discord.js';
import type { NoteLine } from '../../src/platform/queued-note.ts';
import { isUnknownMessage } from './discord-surface.ts';
import { NO_MENTIONS_BODY } from './mentions.ts';

/** The queued note's line on Discord: a reply to the question, pinging no one. */
export function queuedNoteLine(rest: REST, channelId: string, questionId: string): NoteLine {
  return {
    post: async (content) => {
      const body = { content, allowed_mentions: NO_MENTIONS_BODY, message_reference: { message_id: questionId, fail_if_not_exists: false } };
      return ((await rest.post(Routes.channelMessages(channelId), { body })) as APIMessage).id;
    },
    remove: async (id) => {
      await rest.delete(Routes.channelMessage(channelId, id)).catch((error: unknown) => {
        if (!isUnknownMessage(error)) throw error;
      });
    },
  };
}
