import { Events, RESTEvents, Status, type Client } from 'discord.js';
import { ConfigError } from '../../src/config/config-error.ts';
import type { Core } from '../../src/core.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { Platform } from '../../src/platform/platform.ts';
import type { PlatformHooks } from '../../src/platform/platform-hooks.ts';
import { QuestionFlow } from '../../src/platform/question-flow.ts';
import { ButtonPresses } from './button-presses.ts';
import { createDiscordClient } from './client.ts';
import { CommandHandler } from './command-handler.ts';
import { deletedMessageIds, type RawPacket } from './deleted-messages.ts';
import { MessageHandler } from './message-handler.ts';
import { discordReviver } from './question-revival.ts';
import { RouteRateLimits } from './route-rate-limits.ts';
import { sharedGlobalBudget } from './global-budget.ts';
import { DiscordScheduleDelivery } from './schedule-delivery.ts';
import { ReplyChains } from './reply-chains.ts';
import { VoiceNotePolicy } from './voice-note-policy.ts';
import { createDiscordVoice, type DiscordVoiceOptions } from './voice/discord-voice.ts';
import { HistoryCache } from '../../src/workspace/history-cache.ts';

export interface StartDiscordOptions {
  core: Core;
  logger: Logger;
  hooks?: PlatformHooks;
  /** Voice channel timings and queue sizes (defaults suit production). */
  voice?: DiscordVoiceOptions;
}

export interface DiscordBot extends Platform {
  client: Client;
}

/** Connects Herald to Discord (config.discord) and answers messages and slash commands until stopped. */
export async function startDiscord({ core, logger, hooks = {}, voice: voiceOptions }: StartDiscordOptions): Promise<DiscordBot> {
  const discord = core.config.discord;
  if (!discord) throw new ConfigError('DISCORD_TOKEN', 'required to connect to Discord');
  const log = logger.child({ platform: 'discord' });
  // Every process on this Redis draws on the bot's one global budget.
  const client = createDiscordClient(discord, sharedGlobalBudget(core.store, log, discord.token, hooks.metrics));
  const rateLimits = new RouteRateLimits();
  client.rest.on(RESTEvents.Response, (request, response) => {
    rateLimits.observe(request.method, request.path, response.headers);
    if (response.status === 429) {
      hooks.metrics?.platformRateLimited.inc({ platform: 'discord', route: request.route });
      log.warn({ route: request.route, method: request.method }, 'Discord answered 429');
    }
  });

  const voiceNotes = new VoiceNotePolicy(core.store);
  const chains = new ReplyChains(core.store, core.config.conversation.historyTtlSeconds * 1000);
  const flow = new QuestionFlow({ platform: 'discord', core, logger: log, hooks });
  const history = new HistoryCache({ ttlMs: core.config.workspace.cacheTtlSeconds * 1000 });
  client.on(Events.Raw, (packet: RawPacket) => {
    const deleted = deletedMessageIds(packet);
    if (deleted.length === 0) return;
    for (const id of deleted) history.forget(id);
    flow.deleted(deleted).catch((error: unknown) => log.error({ err: error }, 'handling a deletion failed'));
  });
  const messages = new MessageHandler({ core, logger: log, rateLimits, chains, voiceNotes, flow, history });
  const voice = createDiscordVoice(client, { capabilities: core.capabilities, store: core.store, logger: log, engine: core.engine }, voiceOptions);
  const commands = new CommandHandler({ core, logger: log, rateLimits, flow, voiceNotes, hooks, voice, history });
  const presses = new ButtonPresses({ flow, messages, logger: log });
  client.on(Events.MessageCreate, (message) => {
    if (message.author.id !== client.user?.id) history.forgetChannel(message.channelId);
    messages.handle(message).catch((error: unknown) => log.error({ err: error }, 'handling a message failed'));
  });
  client.on(Events.MessageUpdate, (_old, updated) => {
    history.forget(updated.id);
    messages.handleEdit(updated).catch((error: unknown) => log.error({ err: error }, 'handling an edited message failed'));
  });
  client.on(Events.InteractionCreate, (interaction) => {
    commands.handle(interaction).catch((error: unknown) => log.error({ err: error }, 'handling an interaction failed'));
    presses.handle(interaction).catch((error: unknown) => log.error({ err: error }, 'handling a button press failed'));
  });
  client.on(Events.Error, (error) => log.error({ err: error }, 'discord client error'));
  client.on(Events.ShardDisconnect, (event) => log.warn({ code: event.code }, 'gateway disconnected'));
  client.on(Events.ShardResume, () => log.info('gateway resumed'));

  let detachSchedules: (() => void) | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    detachSchedules?.();
    flow.close();
    voice.close(); // leave voice channels before the gateway goes
    stopping ??= client.destroy();
    return stopping;
  };
  // Before the first message, so that every reply keeps a heartbeat.
  flow.revivesWith(discordReviver(client, messages));
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await client.login(discord.token);
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  log.info({ user: client.user?.tag, guilds: client.guilds.cache.size }, 'connected to Discord');
  detachSchedules = core.scheduler.attach(new DiscordScheduleDelivery({ client, core, history, rateLimits, logger: log }));

  hooks.health?.register(
    'discord',
    async () => {
      const ok = client.isReady() && client.ws.status === Status.Ready;
      return { ok, detail: ok ? `gateway ping ${client.ws.ping} ms` : `gateway ${Status[client.ws.status] ?? 'down'}` };
    },
    { critical: true },
  );
  return {
    client,
    description: 'Discord',
    // New messages are refused by the core's flow and commands by their handler once draining starts.
    stopIntake: async () => voice.close(),
    stop,
  };
}
