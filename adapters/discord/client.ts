import { Client, GatewayIntentBits, Partials } from 'discord.js';
import type { Config } from '../../src/config/config.ts';
import type { GlobalBudget } from './global-budget.ts';
import { NO_MENTIONS } from './mentions.ts';
import { restOptions } from './rest-options.ts';
import { shardOptions } from './shard-options.ts';

/**
 * The discord.js client Herald runs on: server and direct messages with their content. Discord sends no
 * CHANNEL_CREATE for direct messages, so DM channels arrive as partials; an edit of a message no longer in the cache
 * arrives too (its old version a partial, the new one whole: Discord sends the whole message).
 */
export function createDiscordClient(discord: NonNullable<Config['discord']>, globalBudget?: GlobalBudget): Client {
  const { shards, shardCount } = shardOptions(discord.shards);
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
      GatewayIntentBits.GuildVoiceStates, // who is in which voice channel; voice connections need it too
    ],
    partials: [Partials.Channel, Partials.Message],
    allowedMentions: NO_MENTIONS,
    rest: restOptions(discord, globalBudget),
    shards,
    // discord.js reads SHARD_COUNT from process.env when shardCount is its default 1 (and fails on "auto" or an
    // empty value there), so it is built with another count and given Herald's right after.
    shardCount: shardCount + 1,
  });
  client.options.shardCount = shardCount;
  return client;
}
