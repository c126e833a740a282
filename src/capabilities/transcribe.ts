import { MediaError } from '../errors.ts';
import type { Usage } from '../service/types.ts';
import type { CapabilityDeps } from './deps.ts';
import { AUDIO_BASE64_LIMIT, checkBase64Size, dataUrl } from './media-limits.ts';

export interface TranscribeInput {
  /** WAV or MP3 only (spec §2.8); other formats are converted by src/media/audio first. */
  audio: { mime: 'audio/wav' | 'audio/mpeg' | 'audio/mp3'; data: Buffer };
  /** Absent: the service detects the language. */
  language?: 'auto' | 'zh' | 'en';
  /** Default: config ASR_MODEL. */
  model?: string;
  signal?: AbortSignal;
}

export interface Transcript {
  text: string;
  /** `audioSeconds` is the duration the service measured. */
  usage: Usage;
}

const AUDIO_MIMES = new Set(['audio/wav', 'audio/mpeg', 'audio/mp3']);

/** Speech to text with ASR_MODEL. The 10 MB Base64 limit is checked first, so a long recording fails with a clear message. */
export async function transcribe(deps: CapabilityDeps, input: TranscribeInput): Promise<Transcript> {
  const { client, config } = deps;
  const { mime, data } = input.audio;
  if (!AUDIO_MIMES.has(mime)) {
    throw new MediaError(`Speech recognition reads WAV and MP3 audio, not ${mime}.`, { code: 'unsupported_format' });
  }
  checkBase64Size('The recording', data.length, AUDIO_BASE64_LIMIT);
  const result = await client.chat(
    {
      model: input.model ?? config.models.asr,
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: dataUrl(mime, data) } }] }],
      ...(input.language && { asr_options: { language: input.language } }),
    },
    { signal: input.signal, capability: 'transcribe' },
  );
  return { text: result.content.trim(), usage: result.usage };
}
