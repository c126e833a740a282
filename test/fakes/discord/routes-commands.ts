import { DiscordErrors, FormErrors } from './errors.ts';
import { validateCommand, validateCommandList, type ValidCommand } from './command-validation.ts';
import type { CommandRecord, Json } from './records.ts';
import { route, type RouteContext, type RouteDef } from './rest-router.ts';
import { botGuild } from './routes-core.ts';
import { snowflake } from './snowflake.ts';
import type { World } from './world.ts';

export function commandPayload(command: CommandRecord): Json {
  return {
    id: command.id,
    application_id: command.applicationId,
    version: command.version,
    default_member_permissions: command.defaultMemberPermissions,
    type: command.type,
    name: command.name,
    name_localizations: command.nameLocalizations,
    description: command.description,
    description_localizations: command.descriptionLocalizations,
    ...(command.guildId ? { guild_id: command.guildId } : { dm_permission: true }),
    ...(command.options.length ? { options: command.options } : {}),
    contexts: command.contexts,
    integration_types: command.integrationTypes,
    nsfw: command.nsfw,
  };
}

function scope(context: RouteContext): { world: World; guildId: string | null } {
  const { world, params } = context;
  if (params.application_id !== world.applicationId) throw DiscordErrors.unknownApplication();
  const guildId = params.guild_id ?? null;
  if (guildId) botGuild(world, guildId);
  return { world, guildId };
}

function sameDefinition(record: CommandRecord, command: ValidCommand): boolean {
  return (
    JSON.stringify([
      record.description,
      record.options,
      record.defaultMemberPermissions,
      record.nsfw,
      record.contexts,
      record.integrationTypes,
      record.nameLocalizations,
      record.descriptionLocalizations,
    ]) ===
    JSON.stringify([
      command.description,
      command.options,
      command.defaultMemberPermissions,
      command.nsfw,
      command.contexts,
      command.integrationTypes,
      command.nameLocalizations,
      command.descriptionLocalizations,
    ])
  );
}

/** Saves a command, keeping the id of an existing one with the same name and type, as Discord does. */
function upsert(world: World, guildId: string | null, command: ValidCommand): { record: CommandRecord; created: boolean } {
  const existing = world.store.guildCommands(world.applicationId, guildId).find((c) => c.name === command.name && c.type === command.type);
  const record: CommandRecord = {
    id: existing?.id ?? snowflake(),
    applicationId: world.applicationId,
    guildId,
    version: existing && sameDefinition(existing, command) ? existing.version : snowflake(),
    ...command,
  };
  world.store.commands.set(record.id, record);
  return { record, created: !existing };
}

function findCommand(context: RouteContext): CommandRecord {
  const { world, guildId } = scope(context);
  const command = world.store.commands.get(context.params.command_id as string);
  if (!command || command.applicationId !== world.applicationId || command.guildId !== guildId) throw DiscordErrors.unknownCommand();
  return command;
}

function routesFor(base: string): RouteDef[] {
  return [
    route('GET', base, 'commands', (context) => {
      const { world, guildId } = scope(context);
      return { status: 200, body: world.store.guildCommands(world.applicationId, guildId).map(commandPayload) };
    }),
    route('PUT', base, 'commands', (context) => {
      const { world, guildId } = scope(context);
      const commands = validateCommandList(context.body);
      const kept = new Set(commands.map((c) => upsert(world, guildId, c).record.id));
      for (const old of world.store.guildCommands(world.applicationId, guildId)) {
        if (!kept.has(old.id)) world.store.commands.delete(old.id);
      }
      world.changed();
      return { status: 200, body: world.store.guildCommands(world.applicationId, guildId).map(commandPayload) };
    }),
    route('POST', base, 'commands', (context) => {
      const { world, guildId } = scope(context);
      const errors = new FormErrors();
      const command = validateCommand(context.body, [], errors);
      errors.throwIfAny();
      const { record, created } = upsert(world, guildId, command);
      world.changed();
      return { status: created ? 201 : 200, body: commandPayload(record) };
    }),
    route('GET', `${base}/:command_id`, 'commands', (context) => ({ status: 200, body: commandPayload(findCommand(context)) })),
    route('PATCH', `${base}/:command_id`, 'commands', (context) => {
      const current = findCommand(context);
      const errors = new FormErrors();
      const merged = validateCommand({ ...commandPayload(current), ...(context.body as Json) }, [], errors);
      errors.throwIfAny();
      const record: CommandRecord = { ...current, ...merged, version: snowflake() };
      context.world.store.commands.set(record.id, record);
      context.world.changed();
      return { status: 200, body: commandPayload(record) };
    }),
    route('DELETE', `${base}/:command_id`, 'commands', (context) => {
      context.world.store.commands.delete(findCommand(context).id);
      context.world.changed();
      return { status: 204 };
    }),
  ];
}

export const commandRoutes: RouteDef[] = [
  ...routesFor('/applications/:application_id/commands'),
  ...routesFor('/applications/:application_id/guilds/:guild_id/commands'),
];
