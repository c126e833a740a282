import { PermissionFlagsBits, type Message, type SendableChannels } from 'discord.js';
import type { Logger } from '../../src/log/logger.ts';
import { threadName } from './thread-name.ts';

/**
 * Where a question in a channel that opens a thread per question is answered: the thread opened from it (already
 * there for an edited one), named after it. Where Herald may not open or write in threads, or Discord refuses, the
 * answer stays in the question's channel.
 */
export async function answerThread(message: Message, botId: string, logger: Logger): Promise<SendableChannels> {
  const channel = message.channel as SendableChannels;
  if (!message.inGuild() || message.channel.isThread()) return channel;
  const permissions = message.channel.permissionsFor(botId);
  if (!permissions?.has([PermissionFlagsBits.CreatePublicThreads, PermissionFlagsBits.SendMessagesInThreads])) {
    logger.warn({ channel: message.channelId }, 'auto-thread: Herald may not open threads here; answering in the channel');
    return channel;
  }
  try {
    return message.thread ?? (await message.startThread({ name: threadName(message, botId) }));
  } catch (error) {
    logger.warn({ err: error, channel: message.channelId }, 'auto-thread: opening a thread failed; answering in the channel');
    return channel;
  }
}
