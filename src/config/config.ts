import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { readMcpConfig, type McpServerConfig } from '../mcp/mcp-config.ts';
import { ConfigError } from './config-error.ts';
import { defaults } from './defaults.ts';

export type Env = Record<string, string | undefined>;

const onOff = z.enum(['on', 'off']).transform((v) => v === 'on');
const positiveInt = z.coerce.number().int().positive();
const url = z.url({ protocol: /^https?$/ });
const optionalSecret = z.string().min(1).optional();
const idList = z
  .string()
  .regex(/^\s*\d{17,20}\s*(,\s*\d{17,20}\s*)*$/, 'comma-separated Discord ids')
  .transform((v) => v.split(',').map((id) => id.trim()))
  .optional();
const shardIds = z
  .string()
  .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'comma-separated shard ids such as "0,1"')
  .transform((v) => [...new Set(v.split(',').map(Number))].sort((a, b) => a - b))
  .optional();

/** One entry per environment variable: the variable name is the key, so a failure names it. */
const schema = z.object({
  API_BASE_URL: url.optional(),
  API_KEY: optionalSecret,
  API_AUTH: z.enum(['bearer', 'api-key']).default(defaults.api.auth),
  API_FORMAT: z.enum(['chat', 'messages']).default(defaults.api.format),
  API_MESSAGES_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'a single path segment such as "anthropic"')
    .default(defaults.api.messagesPrefix),
  API_CONNECT_TIMEOUT_MS: positiveInt.default(defaults.api.connectTimeoutMs),
  API_FIRST_BYTE_TIMEOUT_MS: positiveInt.default(defaults.api.firstByteTimeoutMs),
  API_IDLE_TIMEOUT_MS: positiveInt.default(defaults.api.idleTimeoutMs),
  API_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(defaults.api.maxRetries),
  CHAT_MODEL: z.string().min(1).default(defaults.models.chat),
  CHAT_MODELS_ALLOWED: z
    .string()
    .regex(/^\s*[A-Za-z0-9._:/-]+\s*(,\s*[A-Za-z0-9._:/-]+\s*)*$/, 'comma-separated model ids such as "svc-v2.5-pro,svc-v2-flash"')
    .transform((v) => v.split(',').map((id) => id.trim()))
    .default(() => [...defaults.models.chatAllowed]),
  VISION_MODEL: z.string().min(1).default(defaults.models.vision),
  ASR_MODEL: z.string().min(1).default(defaults.models.asr),
  TTS_MODEL: z.string().min(1).default(defaults.models.tts),
  TTS_VOICE: z.string().min(1).default(defaults.tts.voice),
  WEB_SEARCH: z.enum(['off', 'auto', 'force']).default(defaults.webSearch.mode),
  WEB_SEARCH_MAX_KEYWORD: positiveInt.default(defaults.webSearch.maxKeyword),
  WEB_SEARCH_LIMIT: positiveInt.default(defaults.webSearch.limit),
  WEB_SEARCH_COUNTRY: z.string().min(1).optional(),
  WEB_SEARCH_REGION: z.string().min(1).optional(),
  WEB_SEARCH_CITY: z.string().min(1).optional(),
  THINKING: onOff.default(defaults.thinking),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default(defaults.logLevel),
  TZ: z.string().refine(isTimeZone, 'an IANA time zone such as "Europe/Berlin"').default(defaults.timezone),
  STORE_URL: z
    .string()
    .regex(/^(sqlite|redis|rediss|memory):/, 'sqlite://PATH, redis://HOST:PORT or memory://')
    .default(defaults.storeUrl),
  PORT: z.coerce.number().int().min(0).max(65_535).default(defaults.port),
  HOST: z
    .string()
    .regex(/^[\w.:-]+$/, 'an address such as 127.0.0.1, ::1 or 0.0.0.0')
    .optional(),
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  STORE_TIMEOUT_MS: positiveInt.max(60_000).default(defaults.storeTimeoutMs),
  DISCORD_TOKEN: optionalSecret,
  DISCORD_API_URL: url.optional(),
  DISCORD_ALLOW_GUILDS: idList,
  DISCORD_DENY_GUILDS: idList,
  DISCORD_ALLOW_CHANNELS: idList,
  DISCORD_DENY_CHANNELS: idList,
  DISCORD_ALLOW_ROLES: idList,
  DISCORD_DENY_ROLES: idList,
  DISCORD_DMS: z.enum(['all', 'members']).default('all'),
  SHARD_COUNT: z
    .string()
    .regex(/^(auto|[1-9]\d*)$/, '"auto" or a positive whole number')
    .transform((v) => (v === 'auto' ? ('auto' as const) : Number(v)))
    .default(1),
  SHARD_IDS: shardIds,
  SLACK_BOT_TOKEN: z.string().startsWith('xoxb-', 'a bot token starting with xoxb-').optional(),
  SLACK_SIGNING_SECRET: optionalSecret,
  SLACK_APP_TOKEN: z.string().startsWith('xapp-', 'an app-level token starting with xapp-').optional(),
  SLACK_API_URL: url.optional(),
  MAX_AUDIO_MINUTES: positiveInt.default(defaults.media.maxAudioSeconds / 60),
  MAX_IMAGE_PIXELS: positiveInt.max(defaults.media.maxImagePixels).default(defaults.media.maxImagePixels),
  FFMPEG_PATH: z.string().min(1).optional(),
  PATH: z.string().default(''),
  UPLOAD_LIMIT_MB: positiveInt.default(defaults.media.uploadLimitBytes / 1024 / 1024),
  HISTORY_TTL_HOURS: positiveInt.default(defaults.conversation.historyTtlSeconds / 3600),
  CONTEXT_TOKENS: positiveInt.default(defaults.conversation.contextTokens),
  MAX_TOOL_ROUNDS: positiveInt.max(16).default(defaults.conversation.maxToolRounds),
  APPROVAL_TIMEOUT_MS: positiveInt.max(15 * 60_000).default(defaults.conversation.approvalTimeoutMs),
  TOOLS_MODULE: z.string().min(1).optional(),
  MCP_CONFIG: z.string().min(1).optional(),
  WORKSPACE_HISTORY_PAGES: positiveInt.max(50).default(defaults.workspace.historyPages),
  WORKSPACE_CACHE_SECONDS: positiveInt.max(3600).default(defaults.workspace.cacheTtlSeconds),
  SCHEDULE_GRACE_MINUTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(defaults.schedules.graceMinutes),
  QUOTA_USER_PER_MINUTE: positiveInt.default(defaults.quotas.userRequestsPerMinute),
  QUOTA_GUILD_PER_MINUTE: positiveInt.default(defaults.quotas.guildRequestsPerMinute),
  QUOTA_USER_DAILY_TOKENS: positiveInt.default(defaults.quotas.userDailyTokens),
  QUOTA_GUILD_DAILY_TOKENS: positiveInt.default(defaults.quotas.guildDailyTokens),
});

/** Whether `zone` is an IANA time zone this runtime knows ("Europe/Berlin"). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export type ApiAuth = 'bearer' | 'api-key';
export type ApiFormat = 'chat' | 'messages';
export type WebSearchMode = 'off' | 'auto' | 'force';

export interface Config {
  api: {
    baseUrl: string;
    key: string;
    auth: ApiAuth;
    format: ApiFormat;
    messagesPrefix: string;
    timeouts: { connectMs: number; firstByteMs: number; idleMs: number };
    maxRetries: number;
  };
  /** `chatAllowed`: the chat models /settings may choose (CHAT_MODEL among them). */
  models: { chat: string; chatAllowed: string[]; vision: string; asr: string; tts: string };
  tts: { voice: string };
  webSearch: {
    mode: WebSearchMode;
    maxKeyword: number;
    limit: number;
    userLocation?: { type: 'approximate'; country?: string; region?: string; city?: string };
  };
  thinking: boolean;
  logLevel: string;
  timezone: string;
  storeUrl: string;
  /** How long any one store call may take before it fails as unavailable. */
  storeTimeoutMs: number;
  port: number;
  /** The HTTP server's bind address; every interface when unset. */
  host?: string;
  /** When set, /metrics answers only requests bearing it (`Authorization: Bearer TOKEN`). */
  metricsToken?: string;
  discord?: { token: string; apiUrl?: string; access?: DiscordAccess; shards: DiscordShards };
  slack?: { botToken: string; signingSecret?: string; appToken?: string; apiUrl?: string };
  media: {
    maxAudioSeconds: number;
    maxImagePixels: number;
    uploadLimitBytes: number;
    /** ffmpeg (for M4A/AAC): an explicit executable, else searched on `searchPath` (the process's PATH). */
    ffmpeg: { path?: string; searchPath: string };
  };
  /** `approvalTimeoutMs`: how long a tool call waits for the asker's approval before it is denied. */
  conversation: { historyTtlSeconds: number; contextTokens: number; maxToolRounds: number; approvalTimeoutMs: number; toolsModule?: string };
  /** The MCP servers whose tools are offered beside the built-ins (MCP_CONFIG). */
  mcpServers: McpServerConfig[];
  /** Reading a channel's history: pages of it one question may fetch, and how long a read is reused. */
  workspace: { historyPages: number; cacheTtlSeconds: number };
  /** Scheduled runs: how late one missed while Herald was down may still run (later ones are skipped with a note). */
  schedules: { graceMs: number };
  quotas: {
    userRequestsPerMinute: number;
    guildRequestsPerMinute: number;
    userDailyTokens: number;
    guildDailyTokens: number;
  };
}

/** Where Herald answers on Discord; an empty allow list allows everything, a deny list always wins. */
export interface DiscordAccess {
  allowGuilds: string[];
  denyGuilds: string[];
  allowChannels: string[];
  denyChannels: string[];
  allowRoles: string[];
  denyRoles: string[];
  /** `members`: direct messages only from members who pass the server and role lists in one of Herald's servers. */
  directMessages: 'all' | 'members';
}

/** Gateway shards: `count` in total over every process ('auto': Discord's recommendation), `ids` run by this one (default: all). */
export interface DiscordShards {
  count: number | 'auto';
  ids?: number[];
}

export interface LoadOptions {
  /** Path of the .env file; values already in the environment win over it. */
  envFile?: string;
  /** Whether API_BASE_URL and API_KEY must be set (not for commands that never call the service). */
  requireService?: boolean;
}

/** Reads the environment (plus .env) once, validates every value and returns the typed config. */
export function loadConfig(env: Env, options: LoadOptions = {}): Config {
  const merged = { ...readEnvFile(options.envFile ?? '.env'), ...env };
  for (const key of Object.keys(merged)) if (merged[key] === '') delete merged[key];
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    throw new ConfigError(variable, describeIssue(issue, merged[variable]));
  }
  const e = parsed.data;
  if (options.requireService !== false) {
    if (!e.API_BASE_URL) throw new ConfigError('API_BASE_URL', 'required: the service base URL (try `npm run emulator` for a local one)');
    if (!e.API_KEY) throw new ConfigError('API_KEY', 'required: the service API key');
  }
  if (e.SLACK_BOT_TOKEN && !e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET) {
    throw new ConfigError('SLACK_SIGNING_SECRET', 'required for HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)');
  }
  const location = e.WEB_SEARCH_COUNTRY || e.WEB_SEARCH_REGION || e.WEB_SEARCH_CITY;
  return {
    api: {
      baseUrl: (e.API_BASE_URL ?? '').replace(/\/+$/, ''),
      key: e.API_KEY ?? '',
      auth: e.API_AUTH,
      format: e.API_FORMAT,
      messagesPrefix: e.API_MESSAGES_PREFIX,
      timeouts: { connectMs: e.API_CONNECT_TIMEOUT_MS, firstByteMs: e.API_FIRST_BYTE_TIMEOUT_MS, idleMs: e.API_IDLE_TIMEOUT_MS },
      maxRetries: e.API_MAX_RETRIES,
    },
    models: {
      chat: e.CHAT_MODEL,
      chatAllowed: [...new Set([e.CHAT_MODEL, ...e.CHAT_MODELS_ALLOWED])],
      vision: e.VISION_MODEL,
      asr: e.ASR_MODEL,
      tts: e.TTS_MODEL,
    },
    tts: { voice: e.TTS_VOICE },
    webSearch: {
      mode: e.WEB_SEARCH,
      maxKeyword: e.WEB_SEARCH_MAX_KEYWORD,
      limit: e.WEB_SEARCH_LIMIT,
      ...(location && {
        userLocation: { type: 'approximate' as const, country: e.WEB_SEARCH_COUNTRY, region: e.WEB_SEARCH_REGION, city: e.WEB_SEARCH_CITY },
      }),
    },
    thinking: e.THINKING,
    logLevel: e.LOG_LEVEL,
    timezone: e.TZ,
    storeUrl: e.STORE_URL,
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
    port: e.PORT,
    ...(e.HOST && { host: e.HOST }),
    ...(e.METRICS_TOKEN && { metricsToken: e.METRICS_TOKEN }),
    ...(e.DISCORD_TOKEN && {
      discord: { token: e.DISCORD_TOKEN, apiUrl: e.DISCORD_API_URL, ...discordAccess(e), shards: discordShards(e, merged.SHARD_COUNT !== undefined) },
    }),
    ...(e.SLACK_BOT_TOKEN && {
      slack: { botToken: e.SLACK_BOT_TOKEN, signingSecret: e.SLACK_SIGNING_SECRET, appToken: e.SLACK_APP_TOKEN, apiUrl: e.SLACK_API_URL },
    }),
    media: {
      maxAudioSeconds: e.MAX_AUDIO_MINUTES * 60,
      maxImagePixels: e.MAX_IMAGE_PIXELS,
      uploadLimitBytes: e.UPLOAD_LIMIT_MB * 1024 * 1024,
      ffmpeg: { path: e.FFMPEG_PATH, searchPath: e.PATH },
    },
    conversation: {
      historyTtlSeconds: e.HISTORY_TTL_HOURS * 3600,
      contextTokens: e.CONTEXT_TOKENS,
      maxToolRounds: e.MAX_TOOL_ROUNDS,
      approvalTimeoutMs: e.APPROVAL_TIMEOUT_MS,
      toolsModule: e.TOOLS_MODULE,
    },
    mcpServers: e.MCP_CONFIG ? readMcpConfig(e.MCP_CONFIG, merged) : [],
    workspace: { historyPages: e.WORKSPACE_HISTORY_PAGES, cacheTtlSeconds: e.WORKSPACE_CACHE_SECONDS },
    schedules: { graceMs: e.SCHEDULE_GRACE_MINUTES * 60_000 },
    quotas: {
      userRequestsPerMinute: e.QUOTA_USER_PER_MINUTE,
      guildRequestsPerMinute: e.QUOTA_GUILD_PER_MINUTE,
      userDailyTokens: e.QUOTA_USER_DAILY_TOKENS,
      guildDailyTokens: e.QUOTA_GUILD_DAILY_TOKENS,
    },
  };
}

function discordShards(e: z.infer<typeof schema>, countSet: boolean): DiscordShards {
  const count = e.SHARD_COUNT;
  if (!e.SHARD_IDS) return { count };
  if (!countSet || count === 'auto') {
    throw new ConfigError('SHARD_IDS', 'needs SHARD_COUNT set to the total number of shards, the same in every process');
  }
  const outside = e.SHARD_IDS.find((id) => id >= count);
  if (outside !== undefined)
    throw new ConfigError('SHARD_IDS', `shard ${outside} does not exist: with SHARD_COUNT=${count} ids run from 0 to ${count - 1}`);
  return { count, ids: e.SHARD_IDS };
}

function discordAccess(e: z.infer<typeof schema>): { access?: DiscordAccess } {
  const access: DiscordAccess = {
    allowGuilds: e.DISCORD_ALLOW_GUILDS ?? [],
    denyGuilds: e.DISCORD_DENY_GUILDS ?? [],
    allowChannels: e.DISCORD_ALLOW_CHANNELS ?? [],
    denyChannels: e.DISCORD_DENY_CHANNELS ?? [],
    allowRoles: e.DISCORD_ALLOW_ROLES ?? [],
    denyRoles: e.DISCORD_DENY_ROLES ?? [],
    directMessages: e.DISCORD_DMS,
  };
  const restricted = access.directMessages === 'members' || Object.values(access).some((list) => Array.isArray(list) && list.length > 0);
  return restricted ? { access } : {};
}

function readEnvFile(path: string): Env {
  try {
    return parseEnv(readFileSync(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(path, `cannot be read (${(error as Error).message})`);
  }
}

const SECRET_VARIABLES = /KEY|TOKEN|SECRET/;

function describeIssue(issue: z.core.$ZodIssue, value: string | undefined): string {
  const variable = String(issue.path[0]);
  const shown = value === undefined ? 'missing' : SECRET_VARIABLES.test(variable) ? 'invalid value' : JSON.stringify(value);
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${shown}`;
  if (issue.code === 'invalid_format' && issue.format === 'url') return `expected an http(s) URL, got ${shown}`;
  return `${issue.message.replace(/^Invalid input: /, '')} (got ${shown})`;
}
