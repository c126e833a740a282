import { Events, type Client, type Message, type VoiceState } from 'discord.js';
import { synthesizeStream } from '../../../src/capabilities/synthesize.ts';
import type { Core } from '../../../src/core.ts';
import type { ChatMessageForNarration } from '../../../src/voice/narration.ts';
import type { VoiceControl } from '../../../src/voice/voice-control.ts';
import { VoiceManager, type VoiceManagerOptions } from '../../../src/voice/voice-manager.ts';
import { DiscordVoicePlatform, type VoiceLinkTimings } from './discord-voice-platform.ts';

export interface DiscordVoiceOptions extends Pick<VoiceManagerOptions, 'idleTimeoutMs' | 'maxQueued' | 'maxNarrationBacklog'> {
  link?: VoiceLinkTimings;
}

export interface DiscordVoice {
  manager: VoiceManager;
  /** Voice controls for a command used in a server channel; undefined in DMs. */
  controlFor(origin: { guildId: string | null; channelId: string; userId: string }): VoiceControl | undefined;
  /** Leaves every voice channel and stops listening for messages to narrate. */
  close(): void;
}

/**
 * Voice for a discord.js client: live /say in voice channels, /stop, /skip and /narrate. It listens to
 * the client itself: messageCreate feeds narration, and when the last person leaves the bot's voice
 * channel the bot leaves too. The client needs the GuildVoiceStates intent (and GuildMessages +
 * MessageContent for narration).
 */
export function createDiscordVoice(client: Client, core: Pick<Core, 'capabilities' | 'store' | 'logger'>, options: DiscordVoiceOptions = {}): DiscordVoice {
  const logger = core.logger.child({ component: 'discord-voice' });
  const manager = new VoiceManager({
    platform: 'discord',
    voice: new DiscordVoicePlatform(client, logger, options.link),
    synthesize: (input) => synthesizeStream(core.capabilities, input),
    store: core.store,
    logger,
    idleTimeoutMs: options.idleTimeoutMs,
    maxQueued: options.maxQueued,
    maxNarrationBacklog: options.maxNarrationBacklog,
  });
  const onMessage = (message: Message) => {
    if (message.inGuild()) manager.narrate(narratedMessage(message));
  };
  const onVoiceState = (before: VoiceState, after: VoiceState) => {
    const left = before.channel;
    if (left && before.channelId !== after.channelId && !left.members.some((member) => !member.user.bot)) {
      manager.channelEmptied(left.guildId, left.id);
    }
  };
  client.on(Events.MessageCreate, onMessage);
  client.on(Events.VoiceStateUpdate, onVoiceState);
  return {
    manager,
    controlFor: ({ guildId, channelId, userId }) => (guildId === null ? undefined : manager.control({ guildId, channelId, userId })),
    close() {
      client.off(Events.MessageCreate, onMessage);
      client.off(Events.VoiceStateUpdate, onVoiceState);
      manager.close();
    },
  };
}

export function narratedMessage(message: Message<true>): ChatMessageForNarration {
  return {
    guildId: message.guildId,
    channelId: message.channelId,
    authorName: message.member?.displayName ?? message.author.displayName,
    text: message.cleanContent,
    attachments: [...message.attachments.values()].map((attachment) => ({
      name: attachment.name,
      ...(attachment.contentType !== null && { contentType: attachment.contentType }),
    })),
    stickers: message.stickers.size,
    fromBot: message.author.bot || message.webhookId !== null,
    fromCommand: message.system || message.interactionMetadata !== null,
  };
}
