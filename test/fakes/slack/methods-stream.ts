/**
 * Slack's text streaming for AI apps (chat.startStream / appendStream / stopStream, 2025).
 * Behaviour beyond the reference pages follows what apps measured against the live API: a streamed reply must be
 * a thread reply with both recipient ids, a stream is locked to the shape of its first content (markdown_text or
 * chunks), chat.update on a streaming message is refused with streaming_state_conflict, and a stream that has
 * aged past about five minutes refuses further writes with message_not_in_streaming_state.
 */
import { MAX_MARKDOWN_TEXT, jsonArg, parseBlocks } from './blocks.ts';
import { fail, failWithMessages, missingArgument, stringArg } from './method-types.ts';
import type { FakeCore, MethodCall, MethodSpec, Outcome } from './method-types.ts';
import { newBotMessage, ownedMessage, parseMetadata, postableChannel, recordVersion, resolveThread } from './methods-chat.ts';
import type { Json, StoredMessage, StreamState } from './state.ts';

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const TASK_DISPLAY_MODES = new Set(['timeline', 'plan', 'dense']);
const MAX_TASK_FIELD = 256;

function invalid(message: string): Json {
  return fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] ${message}`] } });
}

/** Parses and checks a `chunks` argument. */
function parseChunks(raw: unknown): Outcome<Json[] | undefined> {
  if (raw === undefined || raw === '') return { value: undefined };
  const parsed = jsonArg(raw);
  if (!parsed.ok || !Array.isArray(parsed.value)) return { failure: invalid('chunks must be an array [json-pointer:/chunks]') };
  const chunks = parsed.value as unknown[];
  for (const [i, chunk] of chunks.entries()) {
    if (typeof chunk !== 'object' || chunk === null) return { failure: invalid(`expected object [json-pointer:/chunks/${i}]`) };
    const c = chunk as Json;
    switch (c.type) {
      case 'markdown_text':
        if (typeof c.text !== 'string') return { failure: invalid(`missing required field: text [json-pointer:/chunks/${i}]`) };
        if (c.text.length > MAX_MARKDOWN_TEXT) return { failure: fail('msg_too_long') };
        break;
      case 'task_update':
        if (typeof c.id !== 'string' || typeof c.title !== 'string') {
          return { failure: invalid(`task_update needs id and title [json-pointer:/chunks/${i}]`) };
        }
        if (typeof c.status !== 'string' || !TASK_STATUSES.has(c.status)) {
          return { failure: invalid(`must be one of pending, in_progress, complete, error [json-pointer:/chunks/${i}/status]`) };
        }
        for (const field of ['title', 'details', 'output'] as const) {
          const value = c[field];
          if (typeof value === 'string' && value.length > MAX_TASK_FIELD) {
            return { failure: invalid(`must be less than ${MAX_TASK_FIELD + 1} characters [json-pointer:/chunks/${i}/${field}]`) };
          }
        }
        break;
      case 'plan_update':
        if (typeof c.title !== 'string') return { failure: invalid(`missing required field: title [json-pointer:/chunks/${i}]`) };
        if (c.title.length > MAX_TASK_FIELD) {
          return { failure: invalid(`must be less than ${MAX_TASK_FIELD + 1} characters [json-pointer:/chunks/${i}/title]`) };
        }
        break;
      case 'blocks': {
        const blocks = parseBlocks(c.blocks);
        if ('error' in blocks) return { failure: failWithMessages(blocks.error, blocks.messages) };
        break;
      }
      default:
        return { failure: invalid(`unsupported chunk type: ${String(c.type)} [json-pointer:/chunks/${i}/type]`) };
    }
  }
  return { value: chunks as Json[] };
}

interface StreamContent {
  markdownText?: string;
  chunks?: Json[];
}

function parseContent(args: Json): Outcome<StreamContent> {
  const markdownText = args.markdown_text === undefined ? undefined : String(args.markdown_text);
  if (markdownText !== undefined && markdownText.length > MAX_MARKDOWN_TEXT) return { failure: fail('msg_too_long') };
  const chunks = parseChunks(args.chunks);
  if ('failure' in chunks) return chunks;
  return {
    value: {
      ...(markdownText !== undefined && markdownText !== '' ? { markdownText } : {}),
      ...(chunks.value && chunks.value.length > 0 ? { chunks: chunks.value } : {}),
    },
  };
}

/** Applies content to the message, enforcing the lock on the stream's shape. */
function applyContent(method: string, message: StoredMessage, stream: StreamState, content: StreamContent): Json | undefined {
  const shape = content.chunks ? 'chunks' : content.markdownText !== undefined ? 'markdown_text' : undefined;
  if (shape === 'chunks' && stream.mode === 'markdown_text') return fail('streaming_mode_mismatch');
  if (shape && !stream.mode) stream.mode = shape;
  stream.calls.push({
    method,
    ...(content.markdownText !== undefined ? { markdown_text: content.markdownText } : {}),
    ...(content.chunks ? { chunks: content.chunks } : {}),
    at: Date.now(),
  });
  if (content.markdownText !== undefined) message.text += content.markdownText;
  for (const chunk of content.chunks ?? []) {
    if (chunk.type === 'markdown_text') message.text += String(chunk.text);
    else if (chunk.type === 'plan_update') stream.planTitle = String(chunk.title);
    else if (chunk.type === 'blocks') message.blocks = [...(message.blocks ?? []), ...(chunk.blocks as unknown[])];
    else if (chunk.type === 'task_update') {
      const id = String(chunk.id);
      let task = stream.tasks.find((t) => t.id === id);
      if (!task) {
        task = { id, title: '', status: 'pending', details: '' };
        stream.tasks.push(task);
      }
      // Title and status replace; details accumulate across updates.
      task.title = String(chunk.title);
      task.status = String(chunk.status);
      if (typeof chunk.details === 'string') task.details += chunk.details;
      if (typeof chunk.output === 'string') task.output = chunk.output;
      if (Array.isArray(chunk.sources)) task.sources = chunk.sources;
    }
  }
  return undefined;
}

function startStream({ core, args }: MethodCall): Json {
  const channelOutcome = postableChannel(core, stringArg(args, 'channel'), false);
  if ('failure' in channelOutcome) return channelOutcome.failure;
  const channel = channelOutcome.value;
  const requestedThread = stringArg(args, 'thread_ts');
  if (!requestedThread) return missingArgument('thread_ts');
  const thread = resolveThread(core, channel.id, requestedThread);
  if ('failure' in thread) return thread.failure;
  const recipientUserId = stringArg(args, 'recipient_user_id');
  const recipientTeamId = stringArg(args, 'recipient_team_id');
  if (!recipientUserId) return fail('missing_recipient_user_id');
  if (!recipientTeamId) return fail('missing_recipient_team_id');
  if (!core.ws.users.has(recipientUserId)) return fail('user_not_found');
  const taskDisplayMode = stringArg(args, 'task_display_mode');
  if (taskDisplayMode !== undefined && !TASK_DISPLAY_MODES.has(taskDisplayMode)) {
    return invalid('task_display_mode must be one of timeline, plan, dense [json-pointer:/task_display_mode]');
  }
  const content = parseContent(args);
  if ('failure' in content) return content.failure;
  const stream: StreamState = {
    state: 'streaming',
    startedAt: Date.now(),
    recipientUserId,
    recipientTeamId,
    ...(taskDisplayMode ? { taskDisplayMode } : {}),
    calls: [],
    tasks: [],
  };
  const message = newBotMessage(core, channel.id, { thread_ts: thread.value, stream });
  applyContent('chat.startStream', message, stream, content.value);
  core.ws.insertMessage(message);
  return { ok: true, channel: channel.id, ts: message.ts };
}

/** The bot's message that is still open for streaming, or the refusal a late write gets. */
function streamingMessage(core: FakeCore, args: Json): Outcome<{ message: StoredMessage; stream: StreamState }> {
  const owned = ownedMessage(core, args, 'message_not_owned_by_app');
  if ('failure' in owned) return owned;
  const message = owned.value;
  const stream = message.stream;
  if (!stream) return { failure: fail('message_not_in_streaming_state') };
  if (stream.state === 'streaming' && Date.now() - stream.startedAt > core.streamLifetimeMs) {
    stream.state = 'stopped';
    stream.stoppedAt = stream.startedAt + core.streamLifetimeMs;
  }
  if (stream.state === 'stopped_by_user') return { failure: fail('stopped_by_user') };
  if (stream.state !== 'streaming') return { failure: fail('message_not_in_streaming_state') };
  return { value: { message, stream } };
}

function appendStream({ core, args }: MethodCall): Json {
  const target = streamingMessage(core, args);
  if ('failure' in target) return target.failure;
  const content = parseContent(args);
  if ('failure' in content) return content.failure;
  if (content.value.markdownText === undefined && !content.value.chunks) {
    return invalid('must provide either markdown_text or chunks');
  }
  const refused = applyContent('chat.appendStream', target.value.message, target.value.stream, content.value);
  if (refused) return refused;
  return { ok: true, channel: target.value.message.channel, ts: target.value.message.ts };
}

function stopStream({ core, args }: MethodCall): Json {
  const target = streamingMessage(core, args);
  if ('failure' in target) return target.failure;
  const { message, stream } = target.value;
  const content = parseContent(args);
  if ('failure' in content) return content.failure;
  let finalBlocks: unknown[] | undefined;
  if (args.blocks !== undefined && args.blocks !== '') {
    const blocks = parseBlocks(args.blocks);
    if ('error' in blocks) return failWithMessages(blocks.error, blocks.messages);
    finalBlocks = blocks.blocks;
  }
  const metadata = parseMetadata(args.metadata);
  if ('failure' in metadata) return metadata.failure;
  const refused = applyContent('chat.stopStream', message, stream, content.value);
  if (refused) return refused;
  if (finalBlocks && finalBlocks.length > 0) message.blocks = [...(message.blocks ?? []), ...finalBlocks];
  if (metadata.value) message.metadata = metadata.value;
  stream.state = 'stopped';
  stream.stoppedAt = Date.now();
  recordVersion(message);
  return { ok: true, channel: message.channel, ts: message.ts, message: core.ws.render(message, { includeMetadata: true }) };
}

export const streamMethods: Record<string, MethodSpec> = {
  'chat.startStream': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: startStream },
  'chat.appendStream': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: appendStream },
  'chat.stopStream': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: stopStream },
};
