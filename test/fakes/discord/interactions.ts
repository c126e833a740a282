import { randomBytes } from 'node:crypto';
import { makeAttachment, restMessage } from './message-service.ts';
import { ChannelType, type CommandRecord, type InteractionRecord, type Json, type MessageRecord } from './records.ts';
import { snowflake } from './snowflake.ts';
import type { World } from './world.ts';

/** A file a user uploads: Discord types it by its name (content-types.ts), whatever the user's client declares. */
export interface TestFile {
  filename: string;
  bytes: Buffer | Uint8Array;
}

/** An option value as a user would pick it: text/number/boolean, a user/channel/role id, or a file. */
export type OptionValue = string | number | boolean | { attachment: TestFile };

export interface InvokeCommandInput {
  name: string;
  /** Defaults to a chat-input (slash) command. */
  commandType?: number;
  userId: string;
  channelId: string;
  subcommandGroup?: string;
  subcommand?: string;
  options?: Record<string, OptionValue>;
  locale?: string;
  /** For user/message context-menu commands: the target user or message id. */
  targetId?: string;
}

export interface ClickComponentInput {
  messageId: string;
  customId: string;
  userId: string;
  /** For select menus: the chosen values. */
  values?: string[];
}

const OPTION_TYPE = {
  SubCommand: 1,
  SubCommandGroup: 2,
  String: 3,
  Integer: 4,
  Boolean: 5,
  User: 6,
  Channel: 7,
  Role: 8,
  Mentionable: 9,
  Number: 10,
  Attachment: 11,
} as const;

export function newToken(id: string): string {
  return `${Buffer.from(`interaction:${id}:`).toString('base64url')}${randomBytes(48).toString('base64url')}`;
}

function findCommand(world: World, input: InvokeCommandInput, guildId: string | null): CommandRecord {
  const type = input.commandType ?? 1;
  const candidates = [
    ...(guildId ? world.store.guildCommands(world.applicationId, guildId) : []),
    ...world.store.guildCommands(world.applicationId, null),
  ];
  const command = candidates.find((c) => c.name === input.name && c.type === type);
  if (!command) throw new Error(`fake discord: no registered command "${input.name}" (type ${type}) to invoke`);
  return command;
}

interface Resolved {
  users: Record<string, Json>;
  members: Record<string, Json>;
  roles: Record<string, Json>;
  channels: Record<string, Json>;
  attachments: Record<string, Json>;
  messages: Record<string, Json>;
}

function buildOptions(
  world: World,
  definitions: Json[],
  given: Record<string, OptionValue>,
  resolved: Resolved,
  guildId: string | null,
  channelId: string,
): Json[] {
  for (const name of Object.keys(given)) {
    if (!definitions.some((d) => d.name === name)) throw new Error(`fake discord: command has no option "${name}"`);
  }
  const result: Json[] = [];
  for (const definition of definitions) {
    const name = definition.name as string;
    const value = given[name];
    if (value === undefined) {
      if (definition.required === true) throw new Error(`fake discord: required option "${name}" missing`);
      continue;
    }
    const type = definition.type as number;
    const choices = definition.choices as Json[] | undefined;
    if (choices && !choices.some((c) => c.value === value)) throw new Error(`fake discord: "${String(value)}" is not a choice of "${name}"`);
    result.push({ name, type, value: resolveValue(world, type, value, resolved, guildId, channelId, name) });
  }
  return result;
}

function resolveValue(
  world: World,
  type: number,
  value: OptionValue,
  resolved: Resolved,
  guildId: string | null,
  channelId: string,
  name: string,
): string | number | boolean {
  const wrongType = () => new Error(`fake discord: option "${name}" of type ${type} cannot take ${JSON.stringify(value)}`);
  switch (type) {
    case OPTION_TYPE.String:
      if (typeof value !== 'string') throw wrongType();
      return value;
    case OPTION_TYPE.Integer:
      if (!Number.isInteger(value)) throw wrongType();
      return value as number;
    case OPTION_TYPE.Number:
      if (typeof value !== 'number') throw wrongType();
      return value;
    case OPTION_TYPE.Boolean:
      if (typeof value !== 'boolean') throw wrongType();
      return value;
    case OPTION_TYPE.Attachment: {
      if (typeof value !== 'object') throw wrongType();
      const file = value.attachment;
      const attachment = makeAttachment({ filename: file.filename, bytes: Buffer.from(file.bytes) }, world.applicationId, true, null);
      world.store.attachments.set(attachment.id, attachment);
      resolved.attachments[attachment.id] = world.payloads.attachment(attachment);
      return attachment.id;
    }
    case OPTION_TYPE.User:
    case OPTION_TYPE.Mentionable:
    case OPTION_TYPE.Role:
    case OPTION_TYPE.Channel: {
      if (typeof value !== 'string') throw wrongType();
      const guild = guildId ? world.store.guild(guildId) : null;
      if (type !== OPTION_TYPE.Channel && guild?.roles.has(value) && type !== OPTION_TYPE.User) {
        resolved.roles[value] = world.payloads.role(guild.roles.get(value)!);
      } else if (type === OPTION_TYPE.Channel) {
        const channel = world.store.channel(value);
        const permissions = guild ? world.payloads.permissionsIn(guild, world.bot.id, channel) : 0n;
        resolved.channels[value] = { ...world.payloads.channel(channel), permissions: permissions.toString() };
      } else {
        resolved.users[value] = world.payloads.user(world.store.user(value));
        const member = guild?.members.get(value);
        if (member) {
          const { user: _user, ...partial } = world.payloads.member(member, false);
          resolved.members[value] = {
            ...partial,
            permissions: world.payloads.permissionsIn(guild!, value, world.store.channel(channelId)).toString(),
          };
        }
      }
      return value;
    }
    default:
      throw wrongType();
  }
}

function compactResolved(resolved: Resolved): Json | null {
  const entries = Object.entries(resolved).filter(([, v]) => Object.keys(v).length > 0);
  return entries.length ? Object.fromEntries(entries) : null;
}

/** The parts of an interaction payload that depend on who invoked it where (`locale`: the user's client language). */
export function interactionContext(world: World, userId: string, channelId: string, locale: string): Json {
  const channel = world.store.channel(channelId);
  const guild = channel.guildId ? world.store.guild(channel.guildId) : null;
  const appPermissions = guild ? world.payloads.permissionsIn(guild, world.bot.id, channel) : 0n;
  const userPermissions = guild ? world.payloads.permissionsIn(guild, userId, channel) : 0n;
  const base: Json = {
    application_id: world.applicationId,
    app_permissions: appPermissions.toString(),
    attachment_size_limit: world.options.uploadLimitBytes,
    channel: { ...world.payloads.channel(channel), ...(guild ? { permissions: userPermissions.toString() } : {}) },
    channel_id: channel.id,
    entitlement_sku_ids: [],
    entitlements: [],
    locale,
    version: 1,
  };
  if (guild) {
    const member = world.store.member(guild.id, userId);
    return {
      ...base,
      authorizing_integration_owners: { '0': guild.id },
      context: 0,
      guild: { id: guild.id, locale: guild.preferredLocale, features: [] },
      guild_id: guild.id,
      guild_locale: guild.preferredLocale,
      member: { ...world.payloads.member(member, true), permissions: userPermissions.toString() },
    };
  }
  if (channel.type !== ChannelType.DM || channel.recipientIds[0] !== userId) {
    throw new Error('fake discord: a DM interaction must come from the DM channel of that user');
  }
  return { ...base, authorizing_integration_owners: { '1': userId }, context: 1, user: world.payloads.user(world.store.user(userId)) };
}

type NewInteraction = Omit<
  InteractionRecord,
  'callbacks' | 'responseType' | 'respondedAt' | 'originalMessageId' | 'followupIds' | 'deferredEphemeral'
>;

export function registerInteraction(world: World, record: NewInteraction): InteractionRecord {
  const full: InteractionRecord = {
    ...record,
    callbacks: [],
    responseType: null,
    respondedAt: null,
    originalMessageId: null,
    followupIds: [],
    deferredEphemeral: false,
  };
  world.store.interactions.set(full.id, full);
  world.store.interactionsByToken.set(full.token, full);
  world.gateway.dispatch('INTERACTION_CREATE', null, () => full.payload);
  world.changed();
  return full;
}

export function invokeCommand(world: World, input: InvokeCommandInput): InteractionRecord {
  const channel = world.store.channel(input.channelId);
  const command = findCommand(world, input, channel.guildId);
  const resolved: Resolved = { users: {}, members: {}, roles: {}, channels: {}, attachments: {}, messages: {} };
  let definitions = command.options;
  const wrap: { name: string; type: number }[] = [];
  for (const [name, type] of [
    [input.subcommandGroup, OPTION_TYPE.SubCommandGroup],
    [input.subcommand, OPTION_TYPE.SubCommand],
  ] as const) {
    if (!name) continue;
    const next = definitions.find((d) => d.name === name && d.type === type);
    if (!next) throw new Error(`fake discord: command "${command.name}" has no sub-command "${name}"`);
    definitions = (next.options as Json[] | undefined) ?? [];
    wrap.push({ name, type });
  }
  let options = buildOptions(world, definitions, input.options ?? {}, resolved, channel.guildId, channel.id);
  for (const level of wrap.reverse()) options = [{ name: level.name, type: level.type, options }];
  if (input.targetId && command.type === 2) resolveValue(world, OPTION_TYPE.User, input.targetId, resolved, channel.guildId, channel.id, 'target');
  if (input.targetId && command.type === 3) {
    resolved.messages[input.targetId] = restMessage(world, world.store.channelMessage(channel.id, input.targetId));
  }
  const id = snowflake();
  const token = newToken(id);
  const resolvedPayload = compactResolved(resolved);
  const payload: Json = {
    ...interactionContext(world, input.userId, channel.id, input.locale ?? 'en-US'),
    id,
    token,
    type: 2,
    data: {
      id: command.id,
      name: command.name,
      type: command.type,
      ...(options.length ? { options } : {}),
      ...(resolvedPayload ? { resolved: resolvedPayload } : {}),
      ...(command.guildId ? { guild_id: command.guildId } : {}),
      ...(input.targetId ? { target_id: input.targetId } : {}),
    },
  };
  return registerInteraction(world, {
    id,
    token,
    type: 2,
    commandName: command.name,
    customId: null,
    guildId: channel.guildId,
    channelId: channel.id,
    userId: input.userId,
    payload,
    createdAt: Date.now(),
    sourceMessageId: null,
  });
}

function findComponent(components: Json[], customId: string): Json | null {
  for (const component of components) {
    if (component.custom_id === customId) return component;
    const nested = [...((component.components as Json[] | undefined) ?? []), ...(component.accessory ? [component.accessory as Json] : [])];
    const found = findComponent(nested, customId);
    if (found) return found;
  }
  return null;
}

export function clickComponent(world: World, input: ClickComponentInput): InteractionRecord {
  const message: MessageRecord | undefined = world.store.messages.get(input.messageId);
  if (!message || message.deleted) throw new Error(`fake discord: no message ${input.messageId}`);
  const component = findComponent(message.components, input.customId);
  if (!component) throw new Error(`fake discord: message has no component "${input.customId}"`);
  const id = snowflake();
  const token = newToken(id);
  const payload: Json = {
    ...interactionContext(world, input.userId, message.channelId, 'en-US'),
    id,
    token,
    type: 3,
    data: {
      custom_id: input.customId,
      component_type: component.type,
      ...(input.values ? { values: input.values } : {}),
    },
    message: restMessage(world, message),
  };
  return registerInteraction(world, {
    id,
    token,
    type: 3,
    commandName: null,
    customId: input.customId,
    guildId: message.guildId,
    channelId: message.channelId,
    userId: input.userId,
    payload,
    createdAt: Date.now(),
    sourceMessageId: message.id,
  });
}
