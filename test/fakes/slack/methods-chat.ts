import { parseMessageContent, jsonArg } from './blocks.ts';
import { TS_PATTERN, boolArg, fail, failWithMessages, missingArgument, resolveChannel, stringArg } from './method-types.ts';
import type { FakeCore, MethodCall, MethodSpec, Outcome } from './method-types.ts';
import type { Json, SlackChannel, StoredMessage } from './state.ts';

/** Checks that the bot may post into a conversation, the way Slack refuses it. */
export function postableChannel(core: FakeCore, ref: string | undefined, allowNamesAndUsers: boolean): Outcome<SlackChannel> {
  if (!ref) return { failure: fail('channel_not_found') };
  const channel = resolveChannel(core, ref, { allowNamesAndUsers });
  if (!channel) return { failure: fail('channel_not_found') };
  if (channel.is_archived) return { failure: fail('is_archived') };
  if (!channel.is_member && !(channel.is_channel && core.scopes.includes('chat:write.public'))) {
    return { failure: fail('not_in_channel') };
  }
  return { value: channel };
}

export function parseMetadata(raw: unknown): Outcome<Json | undefined> {
  if (raw === undefined || raw === '') return { value: undefined };
  const parsed = jsonArg(raw);
  const value = parsed.ok ? parsed.value : undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { failure: fail('invalid_metadata_format') };
  const metadata = value as Json;
  if (typeof metadata.event_type !== 'string' || typeof metadata.event_payload !== 'object' || metadata.event_payload === null) {
    return { failure: fail('invalid_metadata_schema') };
  }
  return { value: metadata };
}

/** Where a reply lands: Slack files a reply to a reply under the thread's parent. */
export function resolveThread(core: FakeCore, channel: string, threadTs: string | undefined): Outcome<string | undefined> {
  if (threadTs === undefined) return { value: undefined };
  if (!TS_PATTERN.test(threadTs)) return { failure: fail('invalid_thread_ts') };
  const target = core.ws.findMessage(channel, threadTs);
  if (!target) return { failure: fail('invalid_thread_ts') };
  return { value: target.thread_ts ?? target.ts };
}

export function newBotMessage(core: FakeCore, channel: string, fields: Partial<StoredMessage>): StoredMessage {
  const { identity } = core.ws;
  return {
    channel,
    ts: core.ws.clock.next(),
    user: identity.botUserId,
    bot_id: identity.botId,
    app_id: identity.appId,
    team: identity.teamId,
    text: '',
    fileIds: [],
    reactions: [],
    versions: [],
    extra: {},
    ...fields,
  };
}

function postMessage({ core, args }: MethodCall): Json {
  const channelOutcome = postableChannel(core, stringArg(args, 'channel'), true);
  if ('failure' in channelOutcome) return channelOutcome.failure;
  const channel = channelOutcome.value;
  const content = parseMessageContent(args);
  if ('error' in content) return failWithMessages(content.error, content.messages);
  const metadata = parseMetadata(args.metadata);
  if ('failure' in metadata) return metadata.failure;
  const thread = resolveThread(core, channel.id, stringArg(args, 'thread_ts'));
  if ('failure' in thread) return thread.failure;
  const threadTs = thread.value;
  const broadcast = threadTs !== undefined && boolArg(args, 'reply_broadcast');
  const message = newBotMessage(core, channel.id, {
    text: content.text,
    ...(content.blocks && content.blocks.length > 0 ? { blocks: content.blocks } : {}),
    ...(content.attachments ? { attachments: content.attachments } : {}),
    ...(threadTs ? { thread_ts: threadTs } : {}),
    ...(broadcast ? { subtype: 'thread_broadcast' } : {}),
    ...(metadata.value ? { metadata: metadata.value } : {}),
  });
  recordVersion(message);
  core.ws.insertMessage(message);
  return { ok: true, channel: channel.id, ts: message.ts, message: core.ws.render(message, { includeMetadata: true }) };
}

export function recordVersion(message: StoredMessage): void {
  message.versions.push({ at: Date.now(), text: message.text, ...(message.blocks ? { blocks: message.blocks } : {}) });
}

/** The bot's own message named by channel+ts, or Slack's refusal. */
export function ownedMessage(core: FakeCore, args: Json, refusal: string): Outcome<StoredMessage> {
  const channelId = stringArg(args, 'channel');
  if (!channelId) return { failure: missingArgument('channel') };
  const ts = stringArg(args, 'ts');
  if (!ts) return { failure: missingArgument('ts') };
  if (!core.ws.channels.has(channelId)) return { failure: fail('channel_not_found') };
  const message = core.ws.findMessage(channelId, ts);
  if (!message) return { failure: fail('message_not_found') };
  if (message.user !== core.ws.identity.botUserId) return { failure: fail(refusal) };
  return { value: message };
}

function update({ core, args }: MethodCall): Json {
  const owned = ownedMessage(core, args, 'cant_update_message');
  if ('failure' in owned) return owned.failure;
  const message = owned.value;
  if (message.stream?.state === 'streaming') return fail('streaming_state_conflict');
  const content = parseMessageContent(args);
  if ('error' in content) return failWithMessages(content.error, content.messages);
  const metadata = parseMetadata(args.metadata);
  if ('failure' in metadata) return metadata.failure;
  message.text = content.text;
  if (args.blocks !== undefined) message.blocks = content.blocks && content.blocks.length > 0 ? content.blocks : undefined;
  if (args.attachments !== undefined) message.attachments = content.attachments;
  if (metadata.value) message.metadata = metadata.value;
  message.edited = { user: core.ws.identity.botUserId, ts: core.ws.clock.next() };
  recordVersion(message);
  const rendered = core.ws.render(message, { includeMetadata: true });
  return { ok: true, channel: message.channel, ts: message.ts, text: message.text, message: rendered };
}

function deleteMessage({ core, args }: MethodCall): Json {
  const owned = ownedMessage(core, args, 'cant_delete_message');
  if ('failure' in owned) return owned.failure;
  core.ws.removeMessage(owned.value.channel, owned.value.ts);
  return { ok: true, channel: owned.value.channel, ts: owned.value.ts };
}

export const chatMethods: Record<string, MethodSpec> = {
  'chat.postMessage': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: postMessage },
  'chat.update': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: update },
  'chat.delete': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: deleteMessage },
};
