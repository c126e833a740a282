import { MAX_TEXT, jsonArg, parseBlocks } from './blocks.ts';
import { fail, failWithMessages, missingArgument, stringArg } from './method-types.ts';
import type { MethodCall, MethodSpec } from './method-types.ts';
import { newBotMessage, postableChannel, recordVersion, resolveThread } from './methods-chat.ts';
import type { Json, StoredFile } from './state.ts';

function filesInfo({ core, args }: MethodCall): Json {
  const id = stringArg(args, 'file');
  if (!id) return missingArgument('file');
  if (core.ws.deletedFileIds.has(id)) return fail('file_deleted');
  const stored = core.ws.files.get(id);
  if (!stored?.completed) return fail('file_not_found');
  return { ok: true, file: stored.file, comments: [], response_metadata: { next_cursor: '' } };
}

function getUploadUrl({ core, args }: MethodCall): Json {
  const filename = stringArg(args, 'filename');
  if (!filename) return missingArgument('filename');
  if (args.length === undefined) return missingArgument('length');
  const length = Number(args.length);
  if (!Number.isInteger(length) || length < 1)
    return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] length must be a positive integer'] } });
  const altText = stringArg(args, 'alt_txt') ?? stringArg(args, 'alt_text');
  const stored = core.files.create(
    {
      name: filename,
      bytes: Buffer.alloc(0),
      user: core.ws.identity.botUserId,
      ...(altText ? { extra: { alt_txt: altText } } : {}),
    },
    { uploaded: false, completed: false, declaredLength: length },
  );
  return { ok: true, upload_url: core.files.uploadUrlFor(stored.file.id), file_id: stored.file.id };
}

function completeUpload({ core, args }: MethodCall): Json {
  const parsed = jsonArg(args.files);
  if (args.files === undefined) return missingArgument('files');
  const entries = parsed.ok ? parsed.value : undefined;
  if (!Array.isArray(entries) || entries.length === 0 || entries.some((e) => typeof e?.id !== 'string')) {
    return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] files must be an array of {id, title?}'] } });
  }
  const stored: StoredFile[] = [];
  for (const entry of entries as Array<{ id: string; title?: unknown }>) {
    const file = core.ws.files.get(entry.id);
    if (!file?.uploaded) return fail('file_not_found');
    stored.push(file);
  }
  const channelRef = stringArg(args, 'channel_id') ?? stringArg(args, 'channels')?.split(',')[0];
  const initialComment = stringArg(args, 'initial_comment');
  if (initialComment !== undefined && initialComment.length > MAX_TEXT) return fail('msg_too_long');
  let blocks: unknown[] | undefined;
  if (args.blocks !== undefined && args.blocks !== '') {
    const parsedBlocks = parseBlocks(args.blocks);
    if ('error' in parsedBlocks) return failWithMessages(parsedBlocks.error, parsedBlocks.messages);
    blocks = parsedBlocks.blocks;
  }
  let share: { channel: string; threadTs?: string } | undefined;
  if (channelRef) {
    const channel = postableChannel(core, channelRef, false);
    if ('failure' in channel) return channel.failure;
    const thread = resolveThread(core, channel.value.id, stringArg(args, 'thread_ts'));
    if ('failure' in thread) return thread.failure;
    share = { channel: channel.value.id, ...(thread.value ? { threadTs: thread.value } : {}) };
  }
  for (const [i, file] of stored.entries()) {
    const title = (entries[i] as { title?: unknown }).title;
    if (typeof title === 'string' && title !== '') file.file.title = title;
    file.completed = true;
  }
  if (share) {
    const message = newBotMessage(core, share.channel, {
      text: initialComment ?? '',
      fileIds: stored.map((f) => f.file.id),
      ...(blocks && blocks.length > 0 ? { blocks } : {}),
      ...(share.threadTs ? { thread_ts: share.threadTs } : {}),
    });
    recordVersion(message);
    core.ws.insertMessage(message);
    const channel = core.ws.channels.get(share.channel);
    const visibility = channel?.is_private ? 'private' : 'public';
    for (const file of stored) {
      file.file.channels = channel?.is_private ? [] : [share.channel];
      file.file.groups = channel?.is_private && !channel.is_im ? [share.channel] : [];
      file.file.ims = channel?.is_im ? [share.channel] : [];
      file.file.shares = {
        [visibility]: {
          [share.channel]: [
            {
              ts: message.ts,
              ...(share.threadTs ? { thread_ts: share.threadTs } : {}),
              channel_name: channel?.name ?? '',
              team_id: core.ws.identity.teamId,
              share_user_id: core.ws.identity.botUserId,
              source: 'UNKNOWN',
            },
          ],
        },
      };
    }
  }
  // Slack answers with the bare id and title; the share itself shows up in the conversation.
  return { ok: true, files: stored.map((f) => ({ id: f.file.id, title: f.file.title })) };
}

export const fileMethods: Record<string, MethodSpec> = {
  'files.info': { token: 'bot', scope: 'files:read', handler: filesInfo },
  'files.getUploadURLExternal': { token: 'bot', scope: 'files:write', handler: getUploadUrl },
  'files.completeUploadExternal': { token: 'bot', scope: 'files:write', channelArg: 'channel_id', handler: completeUpload },
};
