import { compareTs } from './ids.ts';
import { boolArg, fail, historyScope, missingArgument, readScope, stringArg } from './method-types.ts';
import type { FakeCore, MethodCall, MethodSpec, Outcome } from './method-types.ts';
import type { Json, SlackChannel, StoredMessage } from './state.ts';

function encodeCursor(ts: string): string {
  return Buffer.from(`next_ts:${ts}`).toString('base64');
}

function decodeCursor(cursor: string | undefined): Outcome<string | undefined> {
  if (!cursor) return { value: undefined };
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  if (!decoded.startsWith('next_ts:')) return { failure: fail('invalid_cursor') };
  return { value: decoded.slice('next_ts:'.length) };
}

/** A conversation the bot can read: private ones it is not in are invisible, public ones refuse with not_in_channel. */
function readableChannel(core: FakeCore, args: Json): Outcome<SlackChannel> {
  const id = stringArg(args, 'channel');
  if (!id) return { failure: missingArgument('channel') };
  const channel = core.ws.channels.get(id);
  if (!channel || (!channel.is_member && channel.is_private)) return { failure: fail('channel_not_found') };
  if (!channel.is_member) return { failure: fail('not_in_channel') };
  return { value: channel };
}

function limitArg(args: Json, fallback: number, max: number): number {
  const raw = Number(args.limit);
  if (!Number.isFinite(raw) || raw <= 0) return fallback;
  return Math.min(Math.floor(raw), max);
}

/** Keeps messages inside [oldest, latest]; the bounds themselves only when `inclusive`. */
function inRange(args: Json): (m: StoredMessage) => boolean {
  const oldest = stringArg(args, 'oldest');
  const latest = stringArg(args, 'latest');
  const inclusive = boolArg(args, 'inclusive');
  return (m) => {
    if (oldest !== undefined) {
      const c = compareTs(m.ts, oldest);
      if (c < 0 || (c === 0 && !inclusive)) return false;
    }
    if (latest !== undefined) {
      const c = compareTs(m.ts, latest);
      if (c > 0 || (c === 0 && !inclusive)) return false;
    }
    return true;
  };
}

/**
 * A thread, oldest first: the parent leads the first page whatever `oldest` and `latest` say (and counts toward
 * `limit`); pages after a cursor hold replies only.
 */
function replies({ core, args }: MethodCall): Json {
  const channel = readableChannel(core, args);
  if ('failure' in channel) return channel.failure;
  const ts = stringArg(args, 'ts');
  if (!ts) return missingArgument('ts');
  const target = core.ws.findMessage(channel.value.id, ts);
  if (!target) return fail('thread_not_found');
  const includeMetadata = boolArg(args, 'include_all_metadata');
  const render = (m: StoredMessage): Json => core.ws.render(m, { includeMetadata });
  // A reply's ts names only that reply; a parent's ts names the whole thread.
  if (target.thread_ts && target.thread_ts !== target.ts) {
    return { ok: true, messages: [render(target)], has_more: false };
  }
  const cursor = decodeCursor(stringArg(args, 'cursor'));
  if ('failure' in cursor) return cursor.failure;
  const limit = Math.min(limitArg(args, 1000, 1000), core.rateLimiter.pageCap('conversations.replies') ?? Number.POSITIVE_INFINITY);
  const after = cursor.value;
  const candidates = core.ws
    .replies(channel.value.id, target.ts)
    .filter(inRange(args))
    .filter((m) => after === undefined || compareTs(m.ts, after) >= 0);
  const page = candidates.slice(0, after === undefined ? Math.max(0, limit - 1) : limit);
  const next = candidates[page.length];
  const messages = after === undefined ? [target, ...page] : page;
  return {
    ok: true,
    messages: messages.map(render),
    has_more: next !== undefined,
    ...(next ? { response_metadata: { next_cursor: encodeCursor(next.ts) } } : {}),
  };
}

function history({ core, args }: MethodCall): Json {
  const channel = readableChannel(core, args);
  if ('failure' in channel) return channel.failure;
  const cursor = decodeCursor(stringArg(args, 'cursor'));
  if ('failure' in cursor) return cursor.failure;
  const limit = Math.min(limitArg(args, 100, 999), core.rateLimiter.pageCap('conversations.history') ?? Number.POSITIVE_INFINITY);
  const before = cursor.value;
  const candidates = core.ws
    .topLevel(channel.value.id)
    .concat(core.ws.allMessages(channel.value.id).filter((m) => m.subtype === 'thread_broadcast'))
    .filter(inRange(args))
    .filter((m) => before === undefined || compareTs(m.ts, before) <= 0)
    .sort((a, b) => compareTs(b.ts, a.ts));
  const page = candidates.slice(0, limit);
  const next = candidates[limit];
  const includeMetadata = boolArg(args, 'include_all_metadata');
  return {
    ok: true,
    messages: page.map((m) => core.ws.render(m, { includeMetadata })),
    has_more: next !== undefined,
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
    ...(next ? { response_metadata: { next_cursor: encodeCursor(next.ts) } } : {}),
  };
}

function info({ core, args }: MethodCall): Json {
  const id = stringArg(args, 'channel');
  if (!id) return missingArgument('channel');
  const channel = core.ws.channels.get(id);
  if (!channel || (!channel.is_member && channel.is_private)) return fail('channel_not_found');
  const body: Json = { ...channel, is_general: channel.name === 'general', is_shared: false, is_ext_shared: false, is_org_shared: false };
  if (!channel.is_im) {
    body.name_normalized = channel.name;
    body.topic = { value: '', creator: '', last_set: 0 };
    body.purpose = { value: '', creator: '', last_set: 0 };
  }
  return { ok: true, channel: body };
}

function encodeOffset(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64');
}

function decodeOffset(cursor: string | undefined): Outcome<number> {
  if (!cursor) return { value: 0 };
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return match ? { value: Number(match[1]) } : { failure: fail('invalid_cursor') };
}

/** One page of `items` from the cursor's offset, with the cursor of the next (Slack sends "" after the last). */
function offsetPage<T>(items: T[], args: Json, fallback: number): Outcome<{ page: T[]; nextCursor: string }> {
  const offset = decodeOffset(stringArg(args, 'cursor'));
  if ('failure' in offset) return offset;
  const limit = limitArg(args, fallback, 1000);
  const page = items.slice(offset.value, offset.value + limit);
  const end = offset.value + page.length;
  return { value: { page, nextCursor: end < items.length ? encodeOffset(end) : '' } };
}

/** A conversation's members: any conversation the bot can see, member or not (private ones only as a member). */
function members({ core, args }: MethodCall): Json {
  const id = stringArg(args, 'channel');
  if (!id) return missingArgument('channel');
  const channel = core.ws.channels.get(id);
  if (!channel || (!channel.is_member && channel.is_private)) return fail('channel_not_found');
  const paged = offsetPage(core.ws.membersOf(channel), args, 100);
  if ('failure' in paged) return paged.failure;
  return { ok: true, members: paged.value.page, response_metadata: { next_cursor: paged.value.nextCursor } };
}

const CONVERSATION_TYPES = new Set(['public_channel', 'private_channel', 'mpim', 'im']);

function typeOf(channel: SlackChannel): string {
  if (channel.is_im) return 'im';
  if (channel.is_mpim) return 'mpim';
  return channel.is_private ? 'private_channel' : 'public_channel';
}

/** The conversations the bot can see of the types asked (public channels by default), oldest first. */
function list({ core, args }: MethodCall): Json {
  const types = (stringArg(args, 'types') ?? 'public_channel').split(',').map((t) => t.trim());
  if (types.some((t) => !CONVERSATION_TYPES.has(t))) return fail('invalid_types');
  const excludeArchived = boolArg(args, 'exclude_archived');
  const visible = [...core.ws.channels.values()].filter(
    (c) => types.includes(typeOf(c)) && (c.is_member || !c.is_private) && !(excludeArchived && c.is_archived),
  );
  const paged = offsetPage(visible, args, 100);
  if ('failure' in paged) return paged.failure;
  return { ok: true, channels: paged.value.page.map((c) => ({ ...c })), response_metadata: { next_cursor: paged.value.nextCursor } };
}

function listScope(call: MethodCall): string {
  const types = stringArg(call.args, 'types') ?? 'public_channel';
  return types.includes('private_channel') ? 'groups:read' : 'channels:read';
}

function channelOf(call: MethodCall): SlackChannel | undefined {
  const id = stringArg(call.args, 'channel');
  return id ? call.core.ws.channels.get(id) : undefined;
}

export const conversationMethods: Record<string, MethodSpec> = {
  'conversations.replies': { token: 'bot', scope: (call) => historyScope(channelOf(call)), handler: replies },
  'conversations.history': { token: 'bot', scope: (call) => historyScope(channelOf(call)), handler: history },
  'conversations.info': { token: 'bot', scope: (call) => readScope(channelOf(call)), handler: info },
  'conversations.members': { token: 'bot', scope: (call) => readScope(channelOf(call)), handler: members },
  'conversations.list': { token: 'bot', scope: listScope, handler: list },
};
