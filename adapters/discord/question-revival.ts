import { Routes, type APIChannel, type APIMessage, type Client } from 'discord.js';
import type { Reviver } from '../../src/platform/platform.ts';
import { AnswerMessages } from './answer-messages.ts';
import type { MessageHandler } from './message-handler.ts';

/** Where a question was asked, for another instance to read it again should this one die answering it. */
export interface DiscordRevival {
  channelId: string;
  messageId: string;
  /** Answered in the thread opened from the question (its id is the question's). */
  inOwnThread: boolean;
}

/** Messages read after a question when looking for its answer's unrecorded ones. */
const STRAY_LOOKUP = 20;
const INTERRUPTED = '_(This answer was interrupted, and its question is gone.)_';

/** Questions read again from Discord, as a Regenerate press reads them. */
export function discordReviver(client: Client, messages: MessageHandler): Reviver {
  return {
    question: async (revival) => {
      const at = discordRevival(revival);
      if (!at) return undefined;
      if (!client.isReady()) throw new Error('not connected to Discord yet');
      // A server on another process's shard is not cached here: its question would look gone. Left for that process.
      const { guild_id: guildId } = (await client.rest.get(Routes.channel(at.channelId))) as APIChannel & { guild_id?: string };
      if (guildId !== undefined && !client.guilds.cache.has(guildId)) throw new Error(`server ${guildId} is on a shard this process does not run`);
      return messages.questionAt(client, at.channelId, at.messageId);
    },
    interrupted: async (revival, messageKeys) => {
      const at = discordRevival(revival);
      if (!at) return;
      await new AnswerMessages(client.rest, at.inOwnThread ? at.messageId : at.channelId, at.messageId).rewrite(
        messageKeys,
        { text: INTERRUPTED },
        {},
      );
    },
    strays: async (revival, known) => {
      const at = discordRevival(revival);
      const botId = client.user?.id;
      if (!at || !botId) return [];
      const where = at.inOwnThread ? at.messageId : at.channelId;
      const query = new URLSearchParams({ after: at.messageId, limit: String(STRAY_LOOKUP) });
      const after = (await client.rest.get(Routes.channelMessages(where), { query })) as APIMessage[];
      // In its own thread every message of Herald's answers it; in a channel its answer's first message replies to it.
      return after
        .filter((m) => m.author.id === botId && (at.inOwnThread || m.message_reference?.message_id === at.messageId))
        .map((m) => m.id)
        .filter((id) => !known.includes(id));
    },
  };
}

function discordRevival(value: unknown): DiscordRevival | undefined {
  const at = value as Partial<DiscordRevival> | undefined;
  return typeof at?.channelId === 'string' && typeof at.messageId === 'string' ? (at as DiscordRevival) : undefined;
}
