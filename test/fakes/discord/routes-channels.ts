import { DiscordErrors, FormErrors, jsonError } from './errors.ts';
import { Intent } from './intents.ts';
import { CHANNEL_CREATE_FLAGS, createMessage, deleteMessage, dispatchMessage, editMessage, restMessage } from './message-service.ts';
import { MessageFlag, validateMessageBody } from './message-validation.ts';
import { Permission } from './permissions.ts';
import { ChannelType, type ChannelRecord, type Json } from './records.ts';
import { route, type RouteDef } from './rest-router.ts';
import { discordTimestamp } from './snowflake.ts';
import type { World } from './world.ts';

/** A channel the bot can see: a DM of the bot's, or a guild channel with VIEW_CHANNEL. */
export function visibleChannel(world: World, channelId: string): ChannelRecord {
  const channel = world.store.channel(channelId);
  if (channel.guildId) {
    const guild = world.store.guild(channel.guildId);
    if (!(world.payloads.permissionsIn(guild, world.bot.id, channel) & Permission.ViewChannel)) {
      throw DiscordErrors.missingAccess();
    }
  }
  return channel;
}

function hasPermission(world: World, channel: ChannelRecord, bit: bigint): boolean {
  if (!channel.guildId) return true;
  const guild = world.store.guild(channel.guildId);
  return (world.payloads.permissionsIn(guild, world.bot.id, channel) & bit) !== 0n;
}

function requirePermission(world: World, channel: ChannelRecord, bit: bigint): void {
  if (!hasPermission(world, channel, bit)) throw DiscordErrors.missingPermissions();
}

const SNOWFLAKE = /^\d{1,20}$/;

/** GET messages' query as the OpenAPI describes it: limit an integer 1-100 (default 50), the cursors snowflakes, one at most used. */
function historyQuery(query: URLSearchParams): { limit: number; before: string | null; after: string | null; around: string | null } {
  const errors = new FormErrors();
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 50 : Number(rawLimit);
  if (!Number.isInteger(limit)) errors.add(['limit'], 'NUMBER_TYPE_COERCE', `Value "${rawLimit}" is not int.`);
  else if (limit < 1) errors.add(['limit'], 'NUMBER_TYPE_MIN', 'int value should be greater than or equal to 1.');
  else if (limit > 100) errors.add(['limit'], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.');
  const cursors = { before: query.get('before'), after: query.get('after'), around: query.get('around') };
  for (const [name, value] of Object.entries(cursors)) {
    if (value !== null && !SNOWFLAKE.test(value)) errors.add([name], 'NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`);
  }
  errors.throwIfAny();
  return { limit, ...cursors };
}

const AUTO_ARCHIVE = [60, 1440, 4320, 10080];

function threadOptions(body: unknown): { name: string; autoArchive: number; type: number | null } {
  const input = (body ?? {}) as Json;
  const errors = new FormErrors();
  if (typeof input.name !== 'string' || input.name.trim().length === 0) errors.required(['name']);
  else if (input.name.length > 100) errors.maxLength(['name'], 100);
  const autoArchive = input.auto_archive_duration ?? 4320;
  if (!AUTO_ARCHIVE.includes(autoArchive as number)) {
    errors.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', `Value must be one of {${AUTO_ARCHIVE.join(', ')}}.`);
  }
  const type = input.type === undefined || input.type === null ? null : input.type;
  if (type !== null && type !== 10 && type !== 11 && type !== 12) {
    errors.add(['type'], 'BASE_TYPE_CHOICES', 'Value must be one of {10, 11, 12}.');
  }
  errors.throwIfAny();
  return { name: input.name as string, autoArchive: autoArchive as number, type: type as number | null };
}

function openThread(world: World, parent: ChannelRecord, options: { id?: string; name: string; type: number; autoArchive: number }): ChannelRecord {
  if (parent.type !== ChannelType.GuildText) throw jsonError(400, 50024, 'Cannot execute action on this channel type');
  const now = discordTimestamp();
  const thread = world.store.addChannel({
    id: options.id,
    guildId: parent.guildId,
    type: options.type,
    name: options.name,
    parentId: parent.id,
    ownerId: world.bot.id,
  });
  thread.thread = { archived: false, autoArchiveDuration: options.autoArchive, archiveTimestamp: now, locked: false, createTimestamp: now };
  thread.memberIds.push(world.bot.id);
  world.gateway.dispatch('THREAD_CREATE', Intent.Guilds, () => ({
    ...world.payloads.channel(thread),
    newly_created: true,
    member: { id: thread.id, user_id: world.bot.id, join_timestamp: now, flags: 1 },
  }));
  return thread;
}

export const channelRoutes: RouteDef[] = [
  route('GET', '/channels/:channel_id', 'default', ({ world, params }) => ({
    status: 200,
    body: world.payloads.channel(visibleChannel(world, params.channel_id as string)),
  })),
  route('POST', '/channels/:channel_id/typing', 'typing', ({ world, params }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    requirePermission(world, channel, channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages);
    return { status: 204 };
  }),
  // Without READ_MESSAGE_HISTORY Discord answers with no messages rather than an error.
  route('GET', '/channels/:channel_id/messages', 'default', ({ world, params, query }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    const { limit, before, after, around } = historyQuery(query);
    if (!hasPermission(world, channel, Permission.ReadMessageHistory)) return { status: 200, body: [] };
    let messages = world.store.history(channel.id);
    if (before) messages = messages.filter((m) => BigInt(m.id) < BigInt(before)).slice(-limit);
    else if (after) messages = messages.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
    else if (around) {
      const index = messages.findIndex((m) => BigInt(m.id) >= BigInt(around));
      const start = Math.max(0, (index === -1 ? messages.length : index) - Math.floor(limit / 2));
      messages = messages.slice(start, start + limit);
    } else messages = messages.slice(-limit);
    return { status: 200, body: messages.reverse().map((m) => restMessage(world, m)) };
  }),
  route('GET', '/channels/:channel_id/messages/:message_id', 'default', ({ world, params }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    requirePermission(world, channel, Permission.ReadMessageHistory);
    return { status: 200, body: restMessage(world, world.store.channelMessage(channel.id, params.message_id as string)) };
  }),
  route('POST', '/channels/:channel_id/messages', 'messageCreate', ({ world, params, body, files }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    const message = createMessage(world, {
      channel,
      authorId: world.bot.id,
      input: validateMessageBody(body),
      files,
      allowedFlags: CHANNEL_CREATE_FLAGS,
      checkPermissions: true,
    });
    return { status: 200, body: restMessage(world, message) };
  }),
  route('PATCH', '/channels/:channel_id/messages/:message_id', 'messageEdit', ({ world, params, body, files }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    const message = world.store.channelMessage(channel.id, params.message_id as string);
    editMessage(world, message, { editorId: world.bot.id, input: validateMessageBody(body), files });
    return { status: 200, body: restMessage(world, message) };
  }),
  route('DELETE', '/channels/:channel_id/messages/:message_id', 'messageDelete', ({ world, params }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    deleteMessage(world, world.store.channelMessage(channel.id, params.message_id as string), world.bot.id);
    return { status: 204 };
  }),
  route('POST', '/channels/:channel_id/messages/:message_id/threads', 'threadCreate', ({ world, params, body }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    const starter = world.store.channelMessage(channel.id, params.message_id as string);
    const options = threadOptions(body);
    requirePermission(world, channel, Permission.CreatePublicThreads);
    if (starter.threadId) throw jsonError(400, 160004, 'A thread has already been created for this message');
    const thread = openThread(world, channel, {
      id: starter.id,
      name: options.name,
      type: ChannelType.PublicThread,
      autoArchive: options.autoArchive,
    });
    starter.threadId = thread.id;
    starter.flags |= MessageFlag.HasThread;
    dispatchMessage(world, 'MESSAGE_UPDATE', starter);
    world.changed();
    return { status: 201, body: world.payloads.channel(thread) };
  }),
  route('POST', '/channels/:channel_id/threads', 'threadCreate', ({ world, params, body }) => {
    const channel = visibleChannel(world, params.channel_id as string);
    const options = threadOptions(body);
    const type = options.type ?? ChannelType.PrivateThread;
    requirePermission(world, channel, type === ChannelType.PrivateThread ? Permission.CreatePrivateThreads : Permission.CreatePublicThreads);
    const thread = openThread(world, channel, { name: options.name, type, autoArchive: options.autoArchive });
    world.changed();
    return { status: 201, body: world.payloads.channel(thread) };
  }),
  route('PUT', '/channels/:channel_id/thread-members/@me', 'default', ({ world, params }) => {
    const thread = visibleChannel(world, params.channel_id as string);
    if (!thread.thread) throw jsonError(400, 50024, 'Cannot execute action on this channel type');
    if (!thread.memberIds.includes(world.bot.id)) thread.memberIds.push(world.bot.id);
    return { status: 204 };
  }),
];
