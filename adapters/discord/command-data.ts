import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  type APIApplicationCommandBasicOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import type { CommandDefinition, CommandOption } from '../../commands/command.ts';

const DESCRIPTION_LIMIT = 100;

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
  }
}

/**
 * A command definition as a Discord slash command: required options first (Discord's rule), usable in servers
 * and in direct messages with Herald; administrator commands hidden from members without Manage Server.
 */
export function commandData(definition: CommandDefinition): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const options = [...definition.options].sort((a, b) => Number(b.required ?? false) - Number(a.required ?? false));
  return {
    type: ApplicationCommandType.ChatInput,
    name: definition.name,
    description: description(definition.description),
    options: options.map(optionData),
    contexts: [InteractionContextType.Guild, InteractionContextType.BotDM],
    integration_types: [ApplicationIntegrationType.GuildInstall],
    ...(definition.adminOnly && { default_member_permissions: PermissionFlagsBits.ManageGuild.toString() }),
  };
}
