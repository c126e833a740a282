import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  ChannelType,
  InteractionContextType,
  PermissionFlagsBits,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  type APIApplicationCommandSubcommandOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type RESTPostAPIContextMenuApplicationCommandsJSONBody,
} from 'discord.js';
import type { ChannelKind, CommandDefinition, CommandOption, CommandSubcommand } from '../../commands/command.ts';
import type { MessageActionDefinition } from '../../commands/message-action.ts';

const DESCRIPTION_LIMIT = 100;

const CHANNEL_TYPES = {
  text: [ChannelType.GuildText, ChannelType.GuildAnnouncement],
  thread: [ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread],
  voice: [ChannelType.GuildVoice, ChannelType.GuildStageVoice],
} as const satisfies Record<ChannelKind, readonly ChannelType[]>;

function description(text: string): string {
  return text.length > DESCRIPTION_LIMIT ? `${text.slice(0, DESCRIPTION_LIMIT - 1)}…` : text;
}

function optionData(option: CommandOption): APIApplicationCommandBasicOption {
  const base = { name: option.name, description: description(option.description), required: option.required ?? false };
  switch (option.type) {
    case 'string':
      return {
        ...base,
        type: ApplicationCommandOptionType.String,
        ...(option.choices && { choices: option.choices.map((c) => ({ name: c.name, value: c.value })) }),
        ...(option.maxLength !== undefined && { max_length: option.maxLength }),
      };
    case 'integer':
      return {
        ...base,
        type: ApplicationCommandOptionType.Integer,
        ...(option.minValue !== undefined && { min_value: option.minValue }),
        ...(option.maxValue !== undefined && { max_value: option.maxValue }),
      };
    case 'boolean':
      return { ...base, type: ApplicationCommandOptionType.Boolean };
    case 'attachment':
      return { ...base, type: ApplicationCommandOptionType.Attachment };
    case 'channel':
      return {
        ...base,
        type: ApplicationCommandOptionType.Channel,
        ...(option.channelKinds && { channel_types: option.channelKinds.flatMap((kind) => CHANNEL_TYPES[kind]) }),
      };
  }
}

/** Required options first: Discord's rule. */
function optionList(options: readonly CommandOption[]): APIApplicationCommandBasicOption[] {
  return [...options].sort((a, b) => Number(b.required ?? false) - Number(a.required ?? false)).map(optionData);
}

function subcommandData(subcommand: CommandSubcommand): APIApplicationCommandSubcommandOption {
  return {
    type: ApplicationCommandOptionType.Subcommand,
    name: subcommand.name,
    description: description(subcommand.description),
    ...(subcommand.options.length > 0 && { options: optionList(subcommand.options) }),
  };
}

/**
 * A command definition as a Discord slash command (subcommands as SUB_COMMAND options), usable in servers and in
 * direct messages with Herald; administrator commands hidden from members without Manage Server.
 */
export function commandData(definition: CommandDefinition): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const options: APIApplicationCommandOption[] = definition.subcommands ? definition.subcommands.map(subcommandData) : optionList(definition.options);
  return {
    type: ApplicationCommandType.ChatInput,
    name: definition.name,
    description: description(definition.description),
    options,
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    integration_types: [ApplicationIntegrationType.GuildInstall],
    ...(definition.adminOnly && { default_member_permissions: PermissionFlagsBits.ManageGuild.toString() }),
  };
}

/** A message action as a Discord message command (in a message's Apps menu), usable where slash commands are. */
export function messageCommandData(action: MessageActionDefinition): RESTPostAPIContextMenuApplicationCommandsJSONBody {
  return {
    type: ApplicationCommandType.Message,
    name: action.name,
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    integration_types: [ApplicationIntegrationType.GuildInstall],
  };
}
