/** One model the emulator serves and what it can do. */
export interface ModelSpec {
  id: string;
  /** Answers text chat (both endpoints). */
  chat: boolean;
  vision: boolean;
  asr: boolean;
  tts: boolean;
  webSearch: boolean;
  /** Thinking is on unless the request sends `thinking: {type: 'disabled'}`. */
  thinkingByDefault: boolean;
  /** Longest answer the model writes, whatever the request allows: a longer one is cut (`finish_reason: length`). */
  maxOutputTokens?: number;
}

/** The spec's model table; `brand` replaces the spec's `svc` placeholder. */
export function defaultModels(brand = 'svc'): ModelSpec[] {
  const chat = (suffix: string, extra: Partial<ModelSpec>): ModelSpec => ({
    id: `${brand}-${suffix}`,
    chat: true,
    vision: false,
    asr: false,
    tts: false,
    webSearch: true,
    thinkingByDefault: false,
    ...extra,
  });
  const special = { chat: false, vision: false, webSearch: false, thinkingByDefault: false };
  return [
    chat('v2.5-pro', { thinkingByDefault: true }),
    chat('v2.5', { vision: true }),
    chat('v2-pro', {}),
    chat('v2-omni', { vision: true }),
    chat('v2-flash', {}),
    { id: `${brand}-v2.5-asr`, ...special, asr: true, tts: false },
    { id: `${brand}-v2-tts`, ...special, asr: false, tts: true },
  ];
}

/** The spec's voice list; `brand` replaces `svc` in `svc_default`. */
export function defaultVoices(brand = 'svc'): string[] {
  return [`${brand}_default`, 'default_zh', 'default_en'];
}

export function idsWith(models: ModelSpec[], capability: keyof Omit<ModelSpec, 'id'>): string {
  return models
    .filter((m) => m[capability])
    .map((m) => m.id)
    .join(', ');
}
