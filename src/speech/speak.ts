import { synthesize, synthesizeStream, type SpeechInput } from '../capabilities/synthesize.ts';
import type { CapabilityDeps } from '../capabilities/deps.ts';
import { encodeVoiceMessage } from '../media/speech/ogg-opus-encoder.ts';
import { readWav, wavDurationSeconds } from '../media/wav.ts';
import type { Usage } from '../service/types.ts';

export type SpeechFormat = 'wav' | 'ogg' | 'pcm';

export interface SpokenAudio {
  format: SpeechFormat;
  mime: string;
  data: Buffer;
  durationSeconds: number;
  /** Ogg only: base64 loudness bytes for a native Discord voice message. */
  waveform?: string;
  usage?: Usage;
}

const MIMES: Record<SpeechFormat, string> = { wav: 'audio/wav', ogg: 'audio/ogg', pcm: 'audio/L16;rate=24000;channels=1' };

/**
 * Text to a finished audio file: WAV as the service makes it, an Ogg Opus voice note (48 kHz mono,
 * with the waveform and exact duration Discord's voice messages need), or raw 24 kHz pcm16 from the stream.
 */
export async function speak(deps: CapabilityDeps, input: SpeechInput, format: SpeechFormat): Promise<SpokenAudio> {
  if (format === 'pcm') {
    const chunks: Buffer[] = [];
    for await (const chunk of synthesizeStream(deps, input)) chunks.push(chunk);
    const data = Buffer.concat(chunks);
    return { format, mime: MIMES.pcm, data, durationSeconds: data.length / 2 / 24_000 };
  }
  const { wav, usage } = await synthesize(deps, input);
  if (format === 'wav') return { format, mime: MIMES.wav, data: wav, durationSeconds: wavDurationSeconds(wav), usage };
  const note = await encodeVoiceMessage(readWav(wav));
  return { format, mime: MIMES.ogg, data: note.ogg, durationSeconds: note.durationSeconds, waveform: note.waveform, usage };
}

export function speechFormatFromFileName(name: string): SpeechFormat | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'wav' || ext === 'pcm') return ext;
  if (ext === 'ogg' || ext === 'opus' || ext === 'oga') return 'ogg';
  return undefined;
}
