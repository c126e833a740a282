import { contentTypeFor } from './content-types.ts';
import { DiscordErrors, FormErrors, jsonError } from './errors.ts';
import { imageSize } from './image-size.ts';
import { Intent } from './intents.ts';
import { resolveMentions } from './mentions.ts';
import { MessageFlag, type AttachmentMeta, type MessageInput } from './message-validation.ts';
import type { UploadedFile } from './multipart.ts';
import { Permission } from './permissions.ts';
import { ChannelType, type AttachmentRecord, type ChannelRecord, type InteractionMetadata, type MessageRecord } from './records.ts';
import { snowflake } from './snowflake.ts';
import type { Receiver, World } from './world.ts';

/** Flags a message may be created with; Discord silently drops the others. */
export const CHANNEL_CREATE_FLAGS =
  MessageFlag.SuppressEmbeds | MessageFlag.SuppressNotifications | MessageFlag.IsVoiceMessage | MessageFlag.IsComponentsV2;
export const INTERACTION_CREATE_FLAGS = CHANNEL_CREATE_FLAGS | MessageFlag.Ephemeral;

export interface NewMessage {
  channel: ChannelRecord;
  authorId: string;
  input: MessageInput;
  files: UploadedFile[];
  allowedFlags: number;
  /** Channel permission checks apply to bot REST sends, not to interaction responses. */
  checkPermissions: boolean;
  type?: number;
  interaction?: InteractionMetadata;
  webhookId?: string;
  applicationId?: string;
}

/** Discord keeps letters, digits, dot, dash and underscore; spaces become underscores. */
export function sanitizeFilename(name: string): string {
  const cleaned = name.replace(/\s+/g, '_').replace(/[^A-Za-z0-9._-]/g, '');
  return cleaned.length > 0 ? cleaned : 'unknown';
}

export function makeAttachment(
  file: { filename: string; bytes: Buffer },
  scope: string,
  ephemeral: boolean,
  meta: AttachmentMeta | null,
): AttachmentRecord {
  let filename = sanitizeFilename(meta?.filename ?? file.filename);
  if (meta?.isSpoiler && !filename.startsWith('SPOILER_')) filename = `SPOILER_${filename}`;
  const contentType = contentTypeFor(filename);
  const size = contentType?.startsWith('image/') ? imageSize(file.bytes) : null;
  return {
    id: snowflake(),
    scope,
    ephemeral,
    filename,
    contentType,
    bytes: file.bytes,
    width: size?.width ?? null,
    height: size?.height ?? null,
    description: meta?.description ?? null,
    title: meta?.title ?? null,
    durationSecs: meta?.durationSecs ?? null,
    waveform: meta?.waveform ?? null,
    flags: 0,
  };
}

function checkUploadSize(world: World, files: UploadedFile[]): void {
  const total = files.reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > world.options.uploadLimitBytes) throw DiscordErrors.entityTooLarge();
}

/**
 * The attachments a message ends up with. `existing` is null on create; on edit, entries of `metas` whose id is
 * an existing attachment keep it, and (API v10) uploads not listed in `metas` are dropped.
 */
function resolveAttachments(
  files: UploadedFile[],
  metas: AttachmentMeta[] | undefined,
  existing: AttachmentRecord[] | null,
  scope: string,
  ephemeral: boolean,
): AttachmentRecord[] {
  const byIndex = new Map(files.map((f) => [String(f.index), f]));
  if (metas === undefined) {
    return [...(existing ?? []), ...files.map((f) => makeAttachment(f, scope, ephemeral, null))];
  }
  const errors = new FormErrors();
  const result: AttachmentRecord[] = [];
  const used = new Set<string>();
  metas.forEach((meta, i) => {
    const kept = existing?.find((a) => a.id === meta.id);
    if (kept) {
      result.push(kept);
      return;
    }
    const file = byIndex.get(meta.id);
    if (!file) {
      errors.add(['attachments', i], 'ATTACHMENT_NOT_FOUND', 'Attachment data not found');
      return;
    }
    used.add(meta.id);
    result.push(makeAttachment(file, scope, ephemeral, meta));
  });
  errors.throwIfAny();
  if (existing === null) {
    for (const file of files) {
      if (!used.has(String(file.index))) result.push(makeAttachment(file, scope, ephemeral, null));
    }
  }
  return result;
}

function isEmpty(m: Pick<MessageRecord, 'content' | 'embeds' | 'attachments' | 'components' | 'poll'>, stickers = 0): boolean {
  return (
    m.content.trim().length === 0 &&
    m.embeds.length === 0 &&
    m.attachments.length === 0 &&
    m.components.length === 0 &&
    m.poll === null &&
    stickers === 0
  );
}

function checkVoiceMessage(message: MessageRecord, stickers: number): void {
  if (!(message.flags & MessageFlag.IsVoiceMessage)) return;
  if (message.content.length > 0 || message.embeds.length > 0 || message.components.length > 0 || message.poll || stickers > 0) {
    throw DiscordErrors.voiceNoAdditionalContent();
  }
  const [audio] = message.attachments;
  if (message.attachments.length !== 1 || !audio || !audio.contentType?.startsWith('audio/')) {
    throw DiscordErrors.voiceSingleAudioAttachment();
  }
  if (audio.durationSecs === null || audio.waveform === null) throw DiscordErrors.voiceMissingMetadata();
}

function requireChannelPermissions(world: World, channel: ChannelRecord, userId: string, needed: bigint[]): bigint {
  if (!channel.guildId) return 0n;
  const guild = world.store.guild(channel.guildId);
  const permissions = world.payloads.permissionsIn(guild, userId, channel);
  if (!(permissions & Permission.ViewChannel)) throw DiscordErrors.missingAccess();
  for (const bit of needed) if (!(permissions & bit)) throw DiscordErrors.missingPermissions();
  return permissions;
}

function canMentionEveryone(world: World, channel: ChannelRecord, userId: string): boolean {
  if (!channel.guildId) return false;
  const guild = world.store.guild(channel.guildId);
  return (world.payloads.permissionsIn(guild, userId, channel) & Permission.MentionEveryone) !== 0n;
}

export function createMessage(world: World, request: NewMessage): MessageRecord {
  const { channel, input } = request;
  const { store } = world;
  if (channel.type === ChannelType.GuildCategory) throw jsonError(400, 50008, 'Cannot send messages in a non-text channel');
  const ephemeral = ((input.flags ?? 0) & request.allowedFlags & MessageFlag.Ephemeral) !== 0;
  let permissions = 0n;
  if (request.checkPermissions) {
    const send = channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages;
    permissions = requireChannelPermissions(world, channel, request.authorId, [send]);
    if (request.files.length > 0 && channel.guildId && !(permissions & Permission.AttachFiles)) {
      throw DiscordErrors.missingPermissions();
    }
  }
  checkUploadSize(world, request.files);

  if (input.enforceNonce && input.nonce !== undefined && input.nonce !== null) {
    const recent = store
      .history(channel.id)
      .find((m) => m.authorId === request.authorId && m.nonce === input.nonce && Date.now() - m.createdAt < 120_000);
    if (recent) return recent;
  }

  let reference: MessageRecord['reference'] = null;
  let repliedAuthorId: string | null = null;
  const ref = input.messageReference;
  if (ref) {
    if (ref.type !== 0) {
      const errors = new FormErrors();
      errors.add(['message_reference', 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of (0,).');
      errors.throwIfAny();
    }
    const refChannelId = ref.channelId ?? channel.id;
    const referenced = store.messages.get(ref.messageId);
    if (referenced && !referenced.deleted && !referenced.ephemeral && referenced.channelId === refChannelId) {
      reference = { type: 0, messageId: referenced.id, channelId: refChannelId, guildId: referenced.guildId };
      repliedAuthorId = referenced.authorId;
    } else if (ref.failIfNotExists) {
      const errors = new FormErrors();
      errors.add(['message_reference'], 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
      errors.throwIfAny();
    }
  }

  const id = snowflake();
  const scope = ephemeral && request.applicationId ? request.applicationId : channel.id;
  const content = input.content ?? '';
  const guild = channel.guildId ? store.guild(channel.guildId) : null;
  const mentions = resolveMentions(store, {
    content,
    guild,
    allowed: input.allowedMentions ?? null,
    repliedAuthorId,
    canMentionEveryone: canMentionEveryone(world, channel, request.authorId),
  });
  const message: MessageRecord = {
    id,
    channelId: channel.id,
    guildId: channel.guildId,
    authorId: request.authorId,
    type: request.type ?? (reference ? 19 : 0),
    content,
    embeds: input.embeds ?? [],
    components: input.components ?? [],
    attachments: resolveAttachments(request.files, input.attachments, null, scope, ephemeral),
    flags: (input.flags ?? 0) & request.allowedFlags,
    tts: input.tts ?? false,
    nonce: input.nonce ?? null,
    createdAt: Date.now(),
    editedAt: null,
    mentionIds: mentions.userIds,
    mentionRoleIds: mentions.roleIds,
    mentionEveryone: mentions.everyone,
    allowedMentions: input.allowedMentions ?? null,
    reference,
    snapshots: [],
    webhookId: request.webhookId ?? null,
    applicationId: request.applicationId ?? null,
    interaction: request.interaction ?? null,
    ephemeral,
    threadId: null,
    poll: input.poll ?? null,
    deleted: false,
  };
  const stickers = input.stickerIds?.length ?? 0;
  if (isEmpty(message, stickers)) throw DiscordErrors.emptyMessage();
  checkVoiceMessage(message, stickers);
  if (message.flags & MessageFlag.IsVoiceMessage && request.checkPermissions && channel.guildId && !(permissions & Permission.SendVoiceMessages)) {
    throw DiscordErrors.voiceNotAllowedHere();
  }
  store.saveMessage(message);
  if (!ephemeral) dispatchMessage(world, 'MESSAGE_CREATE', message);
  world.changed();
  return message;
}

export interface EditRequest {
  editorId: string;
  input: MessageInput;
  files: UploadedFile[];
  /** Turns a deferred "thinking" message into a real one. */
  clearLoading?: boolean;
}

export function editMessage(world: World, message: MessageRecord, request: EditRequest): MessageRecord {
  const { input } = request;
  const changesBody = Object.keys(input).some((key) => key !== 'flags' && key !== 'allowedMentions');
  if (message.authorId !== request.editorId) {
    if (changesBody || request.files.length > 0) throw DiscordErrors.cannotEditOthers();
    const channel = world.store.channel(message.channelId);
    requireChannelPermissions(world, channel, request.editorId, [Permission.ManageMessages]);
  }
  if (message.flags & MessageFlag.IsVoiceMessage) throw DiscordErrors.voiceCannotBeEdited();
  checkUploadSize(world, request.files);

  const scope = message.ephemeral && message.applicationId ? message.applicationId : message.channelId;
  const next: MessageRecord = {
    ...message,
    content: input.content ?? message.content,
    embeds: input.embeds ?? message.embeds,
    components: input.components ?? message.components,
    poll: input.poll === undefined ? message.poll : input.poll,
    attachments:
      input.attachments !== undefined || request.files.length > 0
        ? resolveAttachments(request.files, input.attachments, message.attachments, scope, message.ephemeral)
        : message.attachments,
    editedAt: Date.now(),
  };
  if (input.flags !== undefined) {
    next.flags = (message.flags & ~MessageFlag.SuppressEmbeds) | (input.flags & MessageFlag.SuppressEmbeds);
  }
  if (request.clearLoading) {
    next.flags &= ~MessageFlag.Loading;
    next.editedAt = null;
  }
  if (input.content !== undefined) {
    const channel = world.store.channel(message.channelId);
    const repliedAuthorId =
      message.reference && message.type === 19 ? (world.store.messages.get(message.reference.messageId)?.authorId ?? null) : null;
    const mentions = resolveMentions(world.store, {
      content: next.content,
      guild: message.guildId ? world.store.guild(message.guildId) : null,
      allowed: input.allowedMentions ?? null,
      repliedAuthorId,
      canMentionEveryone: canMentionEveryone(world, channel, message.authorId),
    });
    next.mentionIds = mentions.userIds;
    next.mentionRoleIds = mentions.roleIds;
    next.mentionEveryone = mentions.everyone;
    next.allowedMentions = input.allowedMentions ?? null;
  }
  if (isEmpty(next)) throw DiscordErrors.emptyMessage();
  Object.assign(message, next);
  for (const attachment of message.attachments) world.store.attachments.set(attachment.id, attachment);
  if (!message.ephemeral) dispatchMessage(world, 'MESSAGE_UPDATE', message);
  world.changed();
  return message;
}

export function deleteMessage(world: World, message: MessageRecord, deleterId: string): void {
  if (message.authorId !== deleterId) {
    const channel = world.store.channel(message.channelId);
    if (!channel.guildId) throw jsonError(403, 50003, 'Cannot execute action on a DM channel');
    requireChannelPermissions(world, channel, deleterId, [Permission.ManageMessages]);
  }
  world.store.removeMessage(message);
  if (!message.ephemeral) {
    const intent = message.guildId ? Intent.GuildMessages : Intent.DirectMessages;
    world.gateway.dispatch('MESSAGE_DELETE', intent, () => ({
      id: message.id,
      channel_id: message.channelId,
      ...(message.guildId ? { guild_id: message.guildId } : {}),
    }));
  }
  world.changed();
}

/** Discord's MESSAGE_CONTENT rules: content is withheld unless the intent is on or an exception applies. */
export function contentVisible(world: World, message: MessageRecord, intents: number): boolean {
  return (
    (intents & Intent.MessageContent) !== 0 ||
    message.guildId === null ||
    message.authorId === world.bot.id ||
    message.mentionIds.includes(world.bot.id) ||
    message.interaction !== null
  );
}

export function dispatchMessage(
  world: World,
  event: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE',
  message: MessageRecord,
  options: { referencedMessage?: boolean } = {},
): void {
  const intent = message.guildId ? Intent.GuildMessages : Intent.DirectMessages;
  world.gateway.dispatch(event, intent, (receiver: Receiver) =>
    world.payloads.message(message, {
      gateway: true,
      contentVisible: contentVisible(world, message, receiver.intents),
      ...(options.referencedMessage === false && { referencedMessage: false }),
    }),
  );
}

/** A message as the REST API shows it to the bot. */
export function restMessage(world: World, message: MessageRecord): Record<string, unknown> {
  return world.payloads.message(message, {
    gateway: false,
    contentVisible: contentVisible(world, message, world.options.privilegedIntents),
  });
}
