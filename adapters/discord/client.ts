import { Client, GatewayIntentBits, Partials } from 'discord.js';
import type { Config } from '../../src/config/config.ts';
import { NO_MENTIONS } from './mentions.ts';
import { restOptions } from './rest-options.ts';

/**
 * The discord.js client Herald runs on: server and direct messages with their content. Discord sends no
 * CHANNEL_CREATE for direct messages, so DM channels arrive as partials.
 */
export function createDiscordClient(discord: NonNullable<Config['discord']>): Client {
  return new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.GuildVoiceStates, // who is in which voice channel; voice connections need it too
    ],
    partials: [Partials.Channel],
    allowedMentions: NO_MENTIONS,
    rest: restOptions(discord),
  });
}
