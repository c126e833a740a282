import type { Config, WebSearchMode } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { conversationId, settingsId } from './conversation-key.ts';
import type { ChannelTriggers, ConversationKey, ConversationSettings, RequestOverrides, SettingsPatch, SettingsScope } from './types.ts';

export interface ResolvedSettings {
  persona?: string;
  thinking: boolean;
  webSearch: WebSearchMode;
  model: string;
  voice: string;
  quotas: { userRequestsPerMinute: number; userDailyTokens: number };
  /** Members may set a persona for their own conversation here. */
  memberPersonas: boolean;
  triggers: ChannelTriggers;
  /** MCP servers switched off here: the server's list and the channel's together. */
  mcpOff: string[];
  /** Talking in voice channels: whether Herald may listen there, and the name it answers to. */
  talk: { listening: boolean; name: string };
}

const WEB_SEARCH_MODES: readonly WebSearchMode[] = ['off', 'auto', 'force'];
export const MAX_PERSONA_CHARS = 4000;
export const MAX_TRIGGER_WORDS = 10;
export const MAX_TRIGGER_WORD_CHARS = 40;
export const MAX_VOICE_NAME_CHARS = 40;
export const DEFAULT_VOICE_NAME = 'Herald';
const BOOLEAN_FIELDS = new Set(['thinking', 'memberPersonas', 'answerAll', 'autoThread', 'statusReactions', 'voiceListening']);
const IDENTIFIER = /^[A-Za-z0-9._:/-]{1,100}$/;
const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
export const MAX_MCP_OFF = 32;

/** Stored settings per guild/workspace and per channel; a request override wins over channel, channel over guild, guild over config. */
export class SettingsStore {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async get(scope: SettingsScope): Promise<ConversationSettings> {
    return (await this.#store.get<ConversationSettings>(settingsKey(scope))) ?? {};
  }

  /** Applies a patch (`null` clears a field) and returns the scope's settings after it. */
  async update(scope: SettingsScope, patch: SettingsPatch): Promise<ConversationSettings> {
    checkPatch(patch);
    const next: Record<string, unknown> = { ...(await this.get(scope)) };
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) delete next[field];
      else if (field === 'triggerWords') next[field] = normalizeTriggerWords(value as string[]);
      else if (field === 'mcpOff') next[field] = [...new Set((value as string[]).map((name) => name.trim()))];
      else if (value !== undefined) next[field] = typeof value === 'string' ? value.trim() : value;
    }
    if (Object.keys(next).length === 0) await this.#store.delete(settingsKey(scope));
    else await this.#store.set(settingsKey(scope), next);
    return next as ConversationSettings;
  }

  /** A member's persona for one conversation; it applies only while the channel's or server's memberPersonas is on. */
  conversationPersona(key: ConversationKey): Promise<string | undefined> {
    return this.#store.get<string>(conversationPersonaKey(key));
  }

  /** Sets (or with null clears) a conversation's persona, kept as long as its history; RangeError for one too long or empty. */
  async setConversationPersona(key: ConversationKey, persona: string | null, ttlMs: number): Promise<void> {
    if (persona === null) {
      await this.forgetConversationPersona(key);
      return;
    }
    checkPatch({ persona });
    await this.#store.set(conversationPersonaKey(key), persona.trim(), ttlMs);
  }

  /** Clears a conversation's persona; true when it had one. */
  forgetConversationPersona(key: ConversationKey): Promise<boolean> {
    return this.#store.delete(conversationPersonaKey(key));
  }

  /** How Herald is addressed in the channel of `key`; the defaults (mentions only) when the store cannot say. */
  async triggers(key: ConversationKey, logger: Logger): Promise<ChannelTriggers> {
    try {
      return triggersOf(await this.#stored(key));
    } catch (error) {
      logger.warn({ err: error, channel: key.channelId }, "could not read the channel's triggers; answering mentions only");
      return triggersOf({});
    }
  }

  async resolve(key: ConversationKey, config: Config, overrides: RequestOverrides = {}): Promise<ResolvedSettings> {
    const [workspace, channel] = await this.#scopes(key);
    const stored = { ...workspace, ...channel };
    const memberPersonas = stored.memberPersonas === true;
    const ownPersona = memberPersonas ? await this.conversationPersona(key) : undefined;
    const merged: ConversationSettings = { ...stored, ...(ownPersona && { persona: ownPersona }), ...definedOnly(overrides) };
    const { quotas } = config;
    // Where the operator, a server or a channel turned web search off, a request cannot turn it back on.
    const searchOff = (stored.webSearch ?? config.webSearch.mode) === 'off';
    return {
      ...(merged.persona && { persona: merged.persona }),
      thinking: merged.thinking ?? config.thinking,
      webSearch: searchOff ? 'off' : (merged.webSearch ?? config.webSearch.mode),
      model: merged.model !== undefined && isAllowedModel(merged.model, config) ? merged.model : config.models.chat,
      voice: merged.voice ?? config.tts.voice,
      quotas: {
        userRequestsPerMinute: Math.min(merged.userRequestsPerMinute ?? Infinity, quotas.userRequestsPerMinute),
        userDailyTokens: Math.min(merged.userDailyTokens ?? Infinity, quotas.userDailyTokens),
      },
      memberPersonas,
      triggers: triggersOf(stored),
      // Switched off for the server stays off in each of its channels.
      mcpOff: [...new Set([...(workspace.mcpOff ?? []), ...(channel.mcpOff ?? [])])],
      talk: { listening: stored.voiceListening === true, name: stored.voiceName ?? DEFAULT_VOICE_NAME },
    };
  }

  /** The channel's settings over its server's. */
  async #stored(key: ConversationKey): Promise<ConversationSettings> {
    const [workspace, channel] = await this.#scopes(key);
    return { ...workspace, ...channel };
  }

  /** The server's settings and the channel's. */
  #scopes(key: ConversationKey): Promise<[ConversationSettings, ConversationSettings]> {
    return Promise.all([
      key.workspaceId === undefined ? Promise.resolve({}) : this.get({ platform: key.platform, workspaceId: key.workspaceId }),
      this.get({ platform: key.platform, workspaceId: key.workspaceId, channelId: key.channelId }),
    ]);
  }
}

/** Whether a chat model id may be used: the operator's allow list (CHAT_MODELS_ALLOWED), which always holds CHAT_MODEL. */
export function isAllowedModel(model: string, config: Pick<Config, 'models'>): boolean {
  return config.models.chatAllowed.includes(model);
}

function triggersOf(stored: ConversationSettings): ChannelTriggers {
  return {
    answerAll: stored.answerAll === true,
    autoThread: stored.autoThread === true,
    words: stored.triggerWords ?? [],
    statusReactions: stored.statusReactions === true,
  };
}

function definedOnly(overrides: RequestOverrides): ConversationSettings {
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as ConversationSettings;
}

function checkPatch(patch: SettingsPatch): void {
  for (const [field, value] of Object.entries(patch)) {
    if (value === null || value === undefined) continue;
    if (field === 'persona') {
      if (typeof value !== 'string' || value.trim() === '') throw new RangeError('persona must be non-empty text');
      if (value.length > MAX_PERSONA_CHARS) throw new RangeError(`persona must be at most ${MAX_PERSONA_CHARS} characters`);
    } else if (BOOLEAN_FIELDS.has(field)) {
      if (typeof value !== 'boolean') throw new RangeError(`${field} must be true or false`);
    } else if (field === 'triggerWords') {
      checkTriggerWords(value);
    } else if (field === 'webSearch') {
      if (!WEB_SEARCH_MODES.includes(value as WebSearchMode)) throw new RangeError('webSearch must be off, auto or force');
    } else if (field === 'model' || field === 'voice') {
      if (typeof value !== 'string' || !IDENTIFIER.test(value.trim())) {
        throw new RangeError(`${field} must be an id like "svc-v2.5-pro" (letters, digits, . _ - : /)`);
      }
    } else if (field === 'mcpOff') {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MCP_OFF)
        throw new RangeError(`mcp_off must name 1 to ${MAX_MCP_OFF} servers`);
      for (const name of value) {
        if (typeof name !== 'string' || !MCP_SERVER_NAME.test(name.trim()))
          throw new RangeError('mcp_off takes server names: letters, digits, _ and -');
      }
    } else if (field === 'voiceName') {
      if (typeof value !== 'string' || !/[\p{L}\p{N}]/u.test(value)) throw new RangeError('the voice name needs a letter or digit');
      if (value.trim().length > MAX_VOICE_NAME_CHARS) throw new RangeError(`the voice name must be at most ${MAX_VOICE_NAME_CHARS} characters`);
    } else if (field === 'userRequestsPerMinute' || field === 'userDailyTokens') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a whole number of at least 1`);
    } else throw new RangeError(`unknown setting "${field}"`);
  }
}

function checkTriggerWords(value: unknown): void {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_TRIGGER_WORDS) {
    throw new RangeError(`trigger words must be a list of 1 to ${MAX_TRIGGER_WORDS} words`);
  }
  for (const word of value) {
    if (typeof word !== 'string' || !/[\p{L}\p{N}]/u.test(word)) throw new RangeError('each trigger word needs a letter or digit');
    if (word.trim().length > MAX_TRIGGER_WORD_CHARS) throw new RangeError(`a trigger word must be at most ${MAX_TRIGGER_WORD_CHARS} characters`);
  }
}

/** Lower case, one space between words, without the punctuation around them ("Herald," is "herald"), each once. */
function normalizeTriggerWords(words: readonly string[]): string[] {
  const normalized = words.map((word) =>
    word
      .toLowerCase()
      .replace(/\s+/g, ' ')
      .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''),
  );
  return [...new Set(normalized)];
}

function conversationPersonaKey(key: ConversationKey): string {
  return `persona:${conversationId(key)}`;
}

function settingsKey(scope: SettingsScope): string {
  return `settings:${settingsId(scope)}`;
}
