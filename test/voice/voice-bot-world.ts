import type { DiscordVoiceOptions } from '../../adapters/discord/voice/discord-voice.ts';
import { registerCommands, startDiscord, type DiscordBot } from '../../adapters/discord/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createCore, type Core } from '../../src/core.ts';
import { startFakeVoiceServer, type FakeVoiceServer } from '../fakes/discord-voice/index.ts';
import { startFakeDiscord, type ChannelRecord, type FakeDiscord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator, type EmulatorOptions } from '../fakes/service/emulator.ts';
import { silentLogger } from '../helpers/logger.ts';

const VOICE_TOKEN = 'fake-voice-token';

/**
 * A fake voice server for a voice channel of the fake guild (its main one unless `channel`), expecting the session
 * Discord hands the bot (its gateway session), with `users` in the call; Discord then sends the bot to it.
 */
export async function startBotVoiceServer(
  fake: FakeDiscord,
  users: string[],
  { channel, token = VOICE_TOKEN }: { channel?: ChannelRecord; token?: string } = {},
): Promise<FakeVoiceServer> {
  const [ready] = fake.dispatched('READY');
  const voice = await startFakeVoiceServer({
    guildId: fake.guild.id,
    channelId: (channel ?? fake.voiceChannel).id,
    userId: fake.botUser.id,
    sessionId: ready!.sessionId,
    token,
    users,
    heartbeatIntervalMs: 1000,
  });
  fake.setVoiceServer({ endpoint: voice.endpoint, token, ...(channel && { channelId: channel.id }) });
  return voice;
}

export interface VoiceBotOptions {
  emulator?: EmulatorOptions;
  voice?: DiscordVoiceOptions;
  withBob?: boolean;
}

export interface VoiceBotWorld {
  emu: Emulator;
  fake: FakeDiscord;
  core: Core;
  bot: DiscordBot;
  voice: FakeVoiceServer;
  /** The bot's messages in a channel, oldest first. */
  botTexts(channelId: string): string[];
  close(): Promise<void>;
}

/**
 * Herald on the fake Discord (real discord.js and @discordjs/voice) with the emulator as its service, and a fake voice
 * server where Alice (and Bob, when `withBob`) talk; Alice is in the voice channel once this resolves.
 */
export async function startVoiceBotWorld(options: VoiceBotOptions): Promise<VoiceBotWorld> {
  const emu = await startEmulator(options.emulator);
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 1000, voiceToken: VOICE_TOKEN });
  const config = loadConfig(
    { API_BASE_URL: emu.url, API_KEY: emu.apiKey, STORE_URL: 'memory://', DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.restUrl },
    { envFile: '/nonexistent/.env' },
  );
  const core = await createCore(config, silentLogger);
  await registerCommands(config, { guildId: fake.guild.id });
  const bot = await startDiscord({ core, logger: silentLogger, ...(options.voice && { voice: options.voice }) });
  const { alice, bob } = fake.users;
  const voice = await startBotVoiceServer(fake, options.withBob ? [alice.id, bob.id] : [alice.id]);
  fake.setVoiceState({ userId: alice.id, channelId: fake.voiceChannel.id });
  const guild = bot.client.guilds.cache.get(fake.guild.id)!;
  await fake.waitFor(() => guild.voiceStates.cache.get(alice.id)?.channelId === fake.voiceChannel.id);
  return {
    emu,
    fake,
    core,
    bot,
    voice,
    botTexts: (channelId) =>
      fake
        .messages(channelId)
        .filter((m) => m.authorId === fake.botUser.id)
        .map((m) => m.content),
    close: async () => {
      await bot.stop();
      await core.close();
      await voice.close();
      await fake.close();
      await emu.close();
    },
  };
}
