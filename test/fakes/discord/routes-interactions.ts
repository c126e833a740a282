import { DiscordErrors, FormErrors } from './errors.ts';
import { INTERACTION_CREATE_FLAGS, createMessage, deleteMessage, dispatchMessage, editMessage, restMessage } from './message-service.ts';
import { MessageFlag, validateMessageBody } from './message-validation.ts';
import type { UploadedFile } from './multipart.ts';
import { type InteractionRecord, type Json, type MessageRecord, messageRecord } from './records.ts';
import { route, type RouteContext, type RouteDef } from './rest-router.ts';
import { validateModal } from './modals.ts';
import { snowflake } from './snowflake.ts';
import type { World } from './world.ts';

const CallbackType = {
  Pong: 1,
  ChannelMessageWithSource: 4,
  DeferredChannelMessageWithSource: 5,
  DeferredUpdateMessage: 6,
  UpdateMessage: 7,
  ApplicationCommandAutocompleteResult: 8,
  Modal: 9,
  LaunchActivity: 12,
} as const;

/** Response types Discord accepts per interaction type (2 command, 3 component, 5 modal submit). */
const ALLOWED_RESPONSES: Record<number, number[]> = {
  // Updating a message is for a modal opened from one of its components.
  5: [
    CallbackType.ChannelMessageWithSource,
    CallbackType.DeferredChannelMessageWithSource,
    CallbackType.DeferredUpdateMessage,
    CallbackType.UpdateMessage,
  ],
  2: [CallbackType.ChannelMessageWithSource, CallbackType.DeferredChannelMessageWithSource, CallbackType.Modal],
  3: [
    CallbackType.ChannelMessageWithSource,
    CallbackType.DeferredChannelMessageWithSource,
    CallbackType.DeferredUpdateMessage,
    CallbackType.UpdateMessage,
    CallbackType.Modal,
  ],
};

function metadata(interaction: InteractionRecord, originalResponseMessageId: string | null) {
  return {
    id: interaction.id,
    type: interaction.type,
    name: interaction.commandName ?? '',
    userId: interaction.userId,
    guildId: interaction.guildId,
    originalResponseMessageId,
  };
}

function respondWithMessage(world: World, interaction: InteractionRecord, data: unknown, files: UploadedFile[]): MessageRecord {
  if (data === undefined || data === null) throw DiscordErrors.emptyMessage();
  const message = createMessage(world, {
    channel: world.store.channel(interaction.channelId),
    authorId: world.bot.id,
    input: validateMessageBody(data, ['data']),
    files,
    allowedFlags: INTERACTION_CREATE_FLAGS,
    checkPermissions: false,
    type: interaction.type === 2 ? 20 : 0,
    interaction: metadata(interaction, null),
    webhookId: world.applicationId,
    applicationId: world.applicationId,
  });
  return message;
}

/** The "<bot> is thinking..." message a deferred response shows until it is edited. */
function loadingMessage(world: World, interaction: InteractionRecord, ephemeral: boolean): MessageRecord {
  const channel = world.store.channel(interaction.channelId);
  const message = messageRecord({
    id: snowflake(),
    channelId: channel.id,
    guildId: channel.guildId,
    authorId: world.bot.id,
    type: interaction.type === 2 ? 20 : 0,
    flags: MessageFlag.Loading | (ephemeral ? MessageFlag.Ephemeral : 0),
    createdAt: Date.now(),
    webhookId: world.applicationId,
    applicationId: world.applicationId,
    interaction: metadata(interaction, null),
    ephemeral,
  });
  world.store.saveMessage(message);
  if (!ephemeral) dispatchMessage(world, 'MESSAGE_CREATE', message);
  return message;
}

function callback(context: RouteContext) {
  const { world, params, body, files, query } = context;
  const interaction = world.store.interactions.get(params.interaction_id as string);
  if (!interaction || interaction.token !== params.interaction_token) throw DiscordErrors.unknownInteraction();
  const input = (body ?? {}) as Json;
  const record = {
    type: Number(input.type),
    data: (input.data as Json | undefined) ?? null,
    files: files.map((f) => ({ filename: f.filename, contentType: f.contentType, size: f.bytes.length })),
    status: 0,
    at: Date.now(),
  };
  interaction.callbacks.push(record);
  try {
    if (Date.now() - interaction.createdAt > world.options.interactionResponseTimeoutMs) throw DiscordErrors.unknownInteraction();
    if (interaction.responseType !== null) throw DiscordErrors.alreadyAcknowledged();
    const type = input.type;
    const updates = [CallbackType.DeferredUpdateMessage, CallbackType.UpdateMessage] as number[];
    const allowed = (ALLOWED_RESPONSES[interaction.type] ?? []).filter((t) => interaction.sourceMessageId !== null || !updates.includes(t));
    if (typeof type !== 'number' || !allowed.includes(type)) {
      const errors = new FormErrors();
      if (type === undefined) errors.required(['type']);
      else
        errors.add(
          ['type'],
          'INTERACTION_RESPONSE_TYPE_INVALID',
          `Interaction response type must be one of {${allowed.join(', ')}} for this interaction.`,
        );
      errors.throwIfAny();
    }
    let message: MessageRecord | null = null;
    switch (type) {
      case CallbackType.ChannelMessageWithSource:
        message = respondWithMessage(world, interaction, input.data, files);
        interaction.originalMessageId = message.id;
        break;
      case CallbackType.DeferredChannelMessageWithSource: {
        const flags = Number(((input.data ?? {}) as Json).flags ?? 0);
        interaction.deferredEphemeral = (flags & MessageFlag.Ephemeral) !== 0;
        message = loadingMessage(world, interaction, interaction.deferredEphemeral);
        interaction.originalMessageId = message.id;
        break;
      }
      case CallbackType.DeferredUpdateMessage:
        interaction.originalMessageId = interaction.sourceMessageId;
        break;
      case CallbackType.UpdateMessage: {
        const source = world.store.messages.get(interaction.sourceMessageId as string) as MessageRecord;
        message = editMessage(world, source, { editorId: world.bot.id, input: validateMessageBody(input.data ?? {}, ['data']), files });
        interaction.originalMessageId = source.id;
        break;
      }
      case CallbackType.Modal:
        validateModal(input.data);
        break;
    }
    interaction.responseType = type as number;
    interaction.respondedAt = Date.now();
    world.changed();
    record.status = query.get('with_response') === 'true' ? 200 : 204;
    if (record.status === 204) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: interaction.id,
          type: interaction.type,
          activity_instance_id: null,
          response_message_id: message?.id ?? null,
          response_message_loading: message ? (message.flags & MessageFlag.Loading) !== 0 : false,
          response_message_ephemeral: message?.ephemeral ?? false,
          channel_id: interaction.channelId,
          ...(interaction.guildId ? { guild_id: interaction.guildId } : {}),
        },
        ...(message ? { resource: { type, message: restMessage(world, message) } } : {}),
      },
    };
  } catch (error) {
    record.status = (error as { status?: number }).status ?? 500;
    throw error;
  }
}

/** The interaction behind an interaction webhook; its token works for 15 minutes. */
function webhookInteraction(context: RouteContext): InteractionRecord {
  const { world, params } = context;
  if (params.webhook_id !== world.applicationId) throw DiscordErrors.unknownWebhook();
  const interaction = world.store.interactionsByToken.get(params.webhook_token as string);
  if (!interaction || Date.now() - interaction.createdAt > world.options.interactionTokenTtlMs) {
    throw DiscordErrors.invalidWebhookToken();
  }
  return interaction;
}

function interactionMessage(context: RouteContext, interaction: InteractionRecord): MessageRecord {
  const id = context.params.message_id === '@original' ? interaction.originalMessageId : (context.params.message_id as string);
  const belongs = id !== null && id !== undefined && (id === interaction.originalMessageId || interaction.followupIds.includes(id));
  const message = belongs ? context.world.store.messages.get(id) : undefined;
  if (!message || message.deleted) throw DiscordErrors.unknownMessage();
  return message;
}

function getMessage(context: RouteContext) {
  const message = interactionMessage(context, webhookInteraction(context));
  return { status: 200, body: restMessage(context.world, message) };
}

function patchMessage(context: RouteContext) {
  const interaction = webhookInteraction(context);
  const message = interactionMessage(context, interaction);
  editMessage(context.world, message, {
    editorId: context.world.bot.id,
    input: validateMessageBody(context.body ?? {}),
    files: context.files,
    clearLoading: (message.flags & MessageFlag.Loading) !== 0,
  });
  return { status: 200, body: restMessage(context.world, message) };
}

function removeMessage(context: RouteContext) {
  const message = interactionMessage(context, webhookInteraction(context));
  deleteMessage(context.world, message, context.world.bot.id);
  return { status: 204 };
}

function followup(context: RouteContext) {
  const { world } = context;
  const interaction = webhookInteraction(context);
  if (interaction.responseType === null) throw DiscordErrors.unknownWebhook();
  const input = validateMessageBody(context.body ?? {});
  const original = interaction.originalMessageId ? world.store.messages.get(interaction.originalMessageId) : undefined;
  if (original && !original.deleted && original.flags & MessageFlag.Loading) {
    // The first followup after a deferral replaces the "thinking" message and keeps the deferral's visibility.
    const { flags: _ignored, ...rest } = input;
    editMessage(world, original, { editorId: world.bot.id, input: rest, files: context.files, clearLoading: true });
    return { status: 200, body: restMessage(world, original) };
  }
  const message = createMessage(world, {
    channel: world.store.channel(interaction.channelId),
    authorId: world.bot.id,
    input,
    files: context.files,
    allowedFlags: INTERACTION_CREATE_FLAGS,
    checkPermissions: false,
    interaction: metadata(interaction, interaction.originalMessageId),
    webhookId: world.applicationId,
    applicationId: world.applicationId,
  });
  interaction.followupIds.push(message.id);
  return { status: 200, body: restMessage(world, message) };
}

const WEBHOOK = '/webhooks/:webhook_id/:webhook_token';

export const interactionRoutes: RouteDef[] = [
  route('POST', '/interactions/:interaction_id/:interaction_token/callback', null, callback, 'none'),
  route('POST', WEBHOOK, 'webhook', followup, 'none'),
  route('GET', `${WEBHOOK}/messages/:message_id`, 'webhook', getMessage, 'none'),
  route('PATCH', `${WEBHOOK}/messages/:message_id`, 'webhook', patchMessage, 'none'),
  route('DELETE', `${WEBHOOK}/messages/:message_id`, 'webhook', removeMessage, 'none'),
];
