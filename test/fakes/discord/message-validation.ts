import { validateActionRows } from './components.ts';
import { FormErrors } from './errors.ts';
import type { AllowedMentions, Json } from './records.ts';

export const MessageFlag = {
  Crossposted: 1 << 0,
  SuppressEmbeds: 1 << 2,
  HasThread: 1 << 5,
  Ephemeral: 1 << 6,
  Loading: 1 << 7,
  SuppressNotifications: 1 << 12,
  IsVoiceMessage: 1 << 13,
  /** A forward: the message carries a snapshot of the forwarded one. */
  HasSnapshot: 1 << 14,
  IsComponentsV2: 1 << 15,
} as const;

export interface AttachmentMeta {
  id: string;
  filename: string | null;
  description: string | null;
  title: string | null;
  durationSecs: number | null;
  waveform: string | null;
  isSpoiler: boolean;
}

export interface MessageReferenceInput {
  type: number;
  messageId: string;
  channelId: string | null;
  guildId: string | null;
  failIfNotExists: boolean;
}

/** A validated message body; a field is undefined when the request did not carry it. */
export interface MessageInput {
  content?: string;
  embeds?: Json[];
  components?: Json[];
  flags?: number;
  allowedMentions?: AllowedMentions | null;
  attachments?: AttachmentMeta[];
  messageReference?: MessageReferenceInput | null;
  nonce?: string | number | null;
  enforceNonce?: boolean;
  tts?: boolean;
  stickerIds?: string[];
  poll?: Json | null;
}

export const CONTENT_LIMIT = 2000;
const EMBED_TOTAL_LIMIT = 6000;

/** Validates the fields shared by create, edit, webhook and interaction message bodies; throws 50035 on errors. */
export function validateMessageBody(body: unknown, prefix: readonly (string | number)[] = []): MessageInput {
  const errors = new FormErrors();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.add(prefix, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    errors.throwIfAny();
  }
  const input = body as Json;
  const out: MessageInput = {};
  const at = (...path: (string | number)[]) => [...prefix, ...path];

  if (input.content !== undefined && input.content !== null) {
    if (typeof input.content !== 'string') {
      errors.add(at('content'), 'BASE_TYPE_STRING', `Could not interpret "${String(input.content)}" as string.`);
    } else {
      if (input.content.length > CONTENT_LIMIT) errors.maxLength(at('content'), CONTENT_LIMIT);
      out.content = input.content;
    }
  } else if (input.content === null) {
    out.content = '';
  }

  const embeds = list(input, 'embeds', at, errors);
  if (embeds) {
    if (embeds.length > 10) errors.maxLength(at('embeds'), 10);
    let total = 0;
    embeds.forEach((embed, i) => {
      total += validateEmbed(embed, at('embeds', i), errors);
    });
    if (total > EMBED_TOTAL_LIMIT) {
      errors.add(at('embeds'), 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${EMBED_TOTAL_LIMIT}`);
    }
    out.embeds = embeds.map((embed) => ({ type: 'rich', ...(embed as Json) }));
  } else if (input.embeds === null) {
    out.embeds = [];
  }

  const components = list(input, 'components', at, errors);
  if (components) {
    if (components.length > 40) errors.maxLength(at('components'), 40);
    const v2 = typeof input.flags === 'number' && (input.flags & MessageFlag.IsComponentsV2) !== 0;
    if (!v2) validateActionRows(components as Json[], at, errors);
    out.components = components as Json[];
  } else if (input.components === null) {
    out.components = [];
  }

  if (input.flags !== undefined && input.flags !== null) {
    if (!Number.isInteger(input.flags) || (input.flags as number) < 0) {
      errors.add(at('flags'), 'NUMBER_TYPE_COERCE', `Value "${String(input.flags)}" is not int.`);
    } else {
      out.flags = input.flags as number;
    }
  }

  if (input.allowed_mentions !== undefined) {
    out.allowedMentions = input.allowed_mentions === null ? null : validateAllowedMentions(input.allowed_mentions, at('allowed_mentions'), errors);
  }

  const attachments = list(input, 'attachments', at, errors);
  if (attachments) {
    if (attachments.length > 10) errors.maxLength(at('attachments'), 10);
    out.attachments = attachments.map((a, i) => validateAttachmentMeta(a, at('attachments', i), errors));
  } else if (input.attachments === null) {
    out.attachments = [];
  }

  if (input.message_reference !== undefined) {
    out.messageReference = input.message_reference === null ? null : validateReference(input.message_reference, at('message_reference'), errors);
  }

  if (input.nonce !== undefined && input.nonce !== null) {
    if (typeof input.nonce === 'string' && input.nonce.length > 25) errors.maxLength(at('nonce'), 25);
    else if (typeof input.nonce !== 'string' && !Number.isInteger(input.nonce)) {
      errors.add(at('nonce'), 'BASE_TYPE_STRING', `Could not interpret "${String(input.nonce)}" as string.`);
    } else out.nonce = input.nonce as string | number;
  }
  if (input.enforce_nonce !== undefined && input.enforce_nonce !== null) out.enforceNonce = input.enforce_nonce === true;
  if (input.tts !== undefined && input.tts !== null) out.tts = input.tts === true;
  const stickers = list(input, 'sticker_ids', at, errors);
  if (stickers) {
    if (stickers.length > 3) errors.maxLength(at('sticker_ids'), 3);
    out.stickerIds = stickers.map(String);
  }
  if (input.poll !== undefined) out.poll = input.poll === null ? null : (input.poll as Json);

  errors.throwIfAny();
  return out;
}

function list(input: Json, key: string, at: (...path: (string | number)[]) => (string | number)[], errors: FormErrors): unknown[] | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    errors.add(at(key), 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    return undefined;
  }
  return value;
}

function text(value: unknown, path: (string | number)[], max: number, errors: FormErrors, required = false): number {
  if (value === undefined || value === null) {
    if (required) errors.required(path);
    return 0;
  }
  if (typeof value !== 'string') {
    errors.add(path, 'BASE_TYPE_STRING', `Could not interpret "${String(value)}" as string.`);
    return 0;
  }
  if (required && value.trim().length === 0) errors.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
  if (value.length > max) errors.maxLength(path, max);
  return value.length;
}

function url(value: unknown, path: (string | number)[], errors: FormErrors, schemes: readonly string[]): void {
  if (value === undefined || value === null) return;
  let ok = false;
  if (typeof value === 'string') {
    try {
      ok = schemes.includes(new URL(value).protocol);
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    errors.add(
      path,
      'URL_TYPE_INVALID_SCHEME',
      `Scheme "${String(value).split(':')[0]}" is not supported. Scheme must be one of (${schemes.map((s) => s.replace(':', '')).join(', ')}).`,
    );
  }
}

const HTTP = ['http:', 'https:'];
const MEDIA = ['http:', 'https:', 'attachment:'];

/** Returns the embed's character count toward the 6000 total. */
function validateEmbed(value: unknown, path: (string | number)[], errors: FormErrors): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    errors.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return 0;
  }
  const embed = value as Json;
  let total = text(embed.title, [...path, 'title'], 256, errors);
  total += text(embed.description, [...path, 'description'], 4096, errors);
  url(embed.url, [...path, 'url'], errors, HTTP);
  if (embed.color !== undefined && embed.color !== null) {
    if (!Number.isInteger(embed.color)) {
      errors.add([...path, 'color'], 'NUMBER_TYPE_COERCE', `Value "${String(embed.color)}" is not int.`);
    } else if ((embed.color as number) < 0 || (embed.color as number) > 0xffffff) {
      errors.add([...path, 'color'], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 16777215.');
    }
  }
  if (embed.timestamp !== undefined && embed.timestamp !== null && Number.isNaN(Date.parse(String(embed.timestamp)))) {
    errors.add([...path, 'timestamp'], 'DATE_TYPE_PARSE', `Could not parse ${String(embed.timestamp)}. Should be ISO8601.`);
  }
  if (embed.footer !== undefined && embed.footer !== null) {
    const footer = embed.footer as Json;
    total += text(footer.text, [...path, 'footer', 'text'], 2048, errors, true);
    url(footer.icon_url, [...path, 'footer', 'icon_url'], errors, MEDIA);
  }
  if (embed.author !== undefined && embed.author !== null) {
    const author = embed.author as Json;
    total += text(author.name, [...path, 'author', 'name'], 256, errors, true);
    url(author.url, [...path, 'author', 'url'], errors, HTTP);
    url(author.icon_url, [...path, 'author', 'icon_url'], errors, MEDIA);
  }
  for (const key of ['image', 'thumbnail'] as const) {
    if (embed[key] !== undefined && embed[key] !== null) url((embed[key] as Json).url, [...path, key, 'url'], errors, MEDIA);
  }
  if (embed.fields !== undefined && embed.fields !== null) {
    if (!Array.isArray(embed.fields)) {
      errors.add([...path, 'fields'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    } else {
      if (embed.fields.length > 25) errors.maxLength([...path, 'fields'], 25);
      embed.fields.forEach((field: unknown, i: number) => {
        const f = (field ?? {}) as Json;
        total += text(f.name, [...path, 'fields', i, 'name'], 256, errors, true);
        total += text(f.value, [...path, 'fields', i, 'value'], 1024, errors, true);
      });
    }
  }
  return total;
}

function validateAllowedMentions(value: unknown, path: (string | number)[], errors: FormErrors): AllowedMentions {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    errors.add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
    return {};
  }
  const input = value as Json;
  const out: AllowedMentions = {};
  if (input.parse !== undefined && input.parse !== null) {
    if (!Array.isArray(input.parse)) {
      errors.add([...path, 'parse'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
    } else {
      input.parse.forEach((p: unknown, i: number) => {
        if (p !== 'users' && p !== 'roles' && p !== 'everyone') {
          errors.add([...path, 'parse', i], 'BASE_TYPE_CHOICES', "Value must be one of ('roles', 'users', 'everyone').");
        }
      });
      out.parse = input.parse.map(String);
    }
  }
  for (const key of ['users', 'roles'] as const) {
    const ids = input[key];
    if (ids === undefined || ids === null) continue;
    if (!Array.isArray(ids)) {
      errors.add([...path, key], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType');
      continue;
    }
    if (ids.length > 100) errors.maxLength([...path, key], 100);
    out[key] = ids.map(String);
    if (out.parse?.includes(key)) {
      errors.add(path, 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE', `parse:["${key}"] and ${key}: [ids...] are mutually exclusive.`);
    }
  }
  if (input.replied_user !== undefined && input.replied_user !== null) out.replied_user = input.replied_user === true;
  return out;
}

function validateAttachmentMeta(value: unknown, path: (string | number)[], errors: FormErrors): AttachmentMeta {
  const input = (value ?? {}) as Json;
  if (input.id === undefined || input.id === null) errors.required([...path, 'id']);
  text(input.description, [...path, 'description'], 1024, errors);
  text(input.filename, [...path, 'filename'], 1024, errors);
  let durationSecs: number | null = null;
  if (input.duration_secs !== undefined && input.duration_secs !== null) {
    if (typeof input.duration_secs !== 'number' || !(input.duration_secs >= 0)) {
      errors.add([...path, 'duration_secs'], 'NUMBER_TYPE_COERCE', `Value "${String(input.duration_secs)}" is not a number.`);
    } else durationSecs = input.duration_secs;
  }
  let waveform: string | null = null;
  if (input.waveform !== undefined && input.waveform !== null) {
    if (typeof input.waveform !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(input.waveform) || Buffer.from(input.waveform, 'base64').length > 400) {
      errors.add([...path, 'waveform'], 'BASE_TYPE_BAD_BASE64', 'Invalid waveform: must be base64 of at most 400 bytes.');
    } else waveform = input.waveform;
  }
  return {
    id: String(input.id),
    filename: typeof input.filename === 'string' ? input.filename : null,
    description: typeof input.description === 'string' ? input.description : null,
    title: typeof input.title === 'string' ? input.title : null,
    durationSecs,
    waveform,
    isSpoiler: input.is_spoiler === true,
  };
}

function validateReference(value: unknown, path: (string | number)[], errors: FormErrors): MessageReferenceInput {
  const input = (value ?? {}) as Json;
  if (input.message_id === undefined || input.message_id === null) errors.required([...path, 'message_id']);
  const type = input.type === undefined || input.type === null ? 0 : input.type;
  if (type !== 0 && type !== 1) errors.add([...path, 'type'], 'BASE_TYPE_CHOICES', 'Value must be one of (0, 1).');
  return {
    type: type as number,
    messageId: String(input.message_id),
    channelId: input.channel_id ? String(input.channel_id) : null,
    guildId: input.guild_id ? String(input.guild_id) : null,
    failIfNotExists: input.fail_if_not_exists !== false,
  };
}
