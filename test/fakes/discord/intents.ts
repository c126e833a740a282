/** Gateway intent bits (https://discord.com/developers/docs/events/gateway#gateway-intents). */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildModeration: 1 << 2,
  GuildExpressions: 1 << 3,
  GuildIntegrations: 1 << 4,
  GuildWebhooks: 1 << 5,
  GuildInvites: 1 << 6,
  GuildVoiceStates: 1 << 7,
  GuildPresences: 1 << 8,
  GuildMessages: 1 << 9,
  GuildMessageReactions: 1 << 10,
  GuildMessageTyping: 1 << 11,
  DirectMessages: 1 << 12,
  DirectMessageReactions: 1 << 13,
  DirectMessageTyping: 1 << 14,
  MessageContent: 1 << 15,
  GuildScheduledEvents: 1 << 16,
  AutoModerationConfiguration: 1 << 20,
  AutoModerationExecution: 1 << 21,
  GuildMessagePolls: 1 << 24,
  DirectMessagePolls: 1 << 25,
} as const;

export const KNOWN_INTENTS = Object.values(Intent).reduce((all, bit) => all | bit, 0);
export const PRIVILEGED_INTENTS = Intent.GuildMembers | Intent.GuildPresences | Intent.MessageContent;

/** The application flags that show which privileged intents are switched on: GATEWAY_PRESENCE, GATEWAY_GUILD_MEMBERS, GATEWAY_MESSAGE_CONTENT. */
export function applicationFlags(privileged: number): number {
  return (
    (privileged & Intent.GuildPresences ? 1 << 12 : 0) |
    (privileged & Intent.GuildMembers ? 1 << 14 : 0) |
    (privileged & Intent.MessageContent ? 1 << 18 : 0)
  );
}
