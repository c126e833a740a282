import type { Config, WebSearchMode } from '../config/config.ts';
import type { Store } from '../store/store.ts';
import { settingsId } from './conversation-key.ts';
import type { ConversationKey, ConversationSettings, RequestOverrides, SettingsPatch, SettingsScope } from './types.ts';

export interface ResolvedSettings {
  persona?: string;
  thinking: boolean;
  webSearch: WebSearchMode;
  model: string;
  voice: string;
  quotas: { userRequestsPerMinute: number; userDailyTokens: number };
}

const WEB_SEARCH_MODES: readonly WebSearchMode[] = ['off', 'auto', 'force'];
export const MAX_PERSONA_CHARS = 4000;
const IDENTIFIER = /^[A-Za-z0-9._:/-]{1,100}$/;

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
      else if (value !== undefined) next[field] = typeof value === 'string' ? value.trim() : value;
    }
    if (Object.keys(next).length === 0) await this.#store.delete(settingsKey(scope));
    else await this.#store.set(settingsKey(scope), next);
    return next as ConversationSettings;
  }

  async resolve(key: ConversationKey, config: Config, overrides: RequestOverrides = {}): Promise<ResolvedSettings> {
    const [workspace, channel] = await Promise.all([
      key.workspaceId === undefined ? Promise.resolve({}) : this.get({ platform: key.platform, workspaceId: key.workspaceId }),
      this.get({ platform: key.platform, workspaceId: key.workspaceId, channelId: key.channelId }),
    ]);
    const stored: ConversationSettings = { ...workspace, ...channel };
    const merged: ConversationSettings = { ...stored, ...definedOnly(overrides) };
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
    };
  }
}

/** Whether a chat model id may be used: the operator's allow list (CHAT_MODELS_ALLOWED), which always holds CHAT_MODEL. */
export function isAllowedModel(model: string, config: Pick<Config, 'models'>): boolean {
  return config.models.chatAllowed.includes(model);
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
    } else if (field === 'thinking') {
      if (typeof value !== 'boolean') throw new RangeError('thinking must be true or false');
    } else if (field === 'webSearch') {
      if (!WEB_SEARCH_MODES.includes(value as WebSearchMode)) throw new RangeError('webSearch must be off, auto or force');
    } else if (field === 'model' || field === 'voice') {
      if (typeof value !== 'string' || !IDENTIFIER.test(value.trim())) {
        throw new RangeError(`${field} must be an id like "svc-v2.5-pro" (letters, digits, . _ - : /)`);
      }
    } else if (field === 'userRequestsPerMinute' || field === 'userDailyTokens') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a whole number of at least 1`);
    } else throw new RangeError(`unknown setting "${field}"`);
  }
}

function settingsKey(scope: SettingsScope): string {
  return `settings:${settingsId(scope)}`;
}
