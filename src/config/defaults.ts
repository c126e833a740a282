/** Every default in one typed object; the service's model ids are the spec's, with `svc` as the brand placeholder. */
export const defaults = {
  api: {
    auth: 'bearer',
    format: 'chat',
    messagesPrefix: 'anthropic',
    connectTimeoutMs: 10_000,
    firstByteTimeoutMs: 60_000,
    idleTimeoutMs: 30_000,
    maxRetries: 2,
  },
  models: {
    chat: 'svc-v2.5-pro',
    /** The chat models the spec names (those with web search). */
    chatAllowed: ['svc-v2.5-pro', 'svc-v2.5', 'svc-v2-pro', 'svc-v2-omni', 'svc-v2-flash'],
    vision: 'svc-v2.5',
    asr: 'svc-v2.5-asr',
    tts: 'svc-v2-tts',
  },
  tts: { voice: 'svc_default' },
  webSearch: { mode: 'auto', maxKeyword: 3, limit: 5 },
  thinking: true,
  logLevel: 'info',
  timezone: 'UTC',
  storeUrl: 'sqlite://./data/herald.sqlite',
  storeTimeoutMs: 3000,
  port: 3000,
  media: {
    maxAudioSeconds: 30 * 60,
    maxImagePixels: 8_388_608,
    uploadLimitBytes: 10 * 1024 * 1024,
  },
  conversation: {
    historyTtlSeconds: 7 * 24 * 3600,
    contextTokens: 32_000,
    maxToolRounds: 8,
    approvalTimeoutMs: 120_000,
  },
  workspace: {
    historyPages: 10,
    cacheTtlSeconds: 60,
  },
  schedules: {
    graceMinutes: 10,
  },
  quotas: {
    userRequestsPerMinute: 10,
    guildRequestsPerMinute: 60,
    userDailyTokens: 200_000,
    guildDailyTokens: 2_000_000,
  },
} as const;
