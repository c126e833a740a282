import { MediaError } from '../errors.ts';
import { ResponseFormatError } from '../service/errors.ts';
import type { ChatMessage, ChatRequest, Usage } from '../service/types.ts';
import type { CapabilityDeps } from './deps.ts';
import { speechText } from './speech-text.ts';

export interface SpeechInput {
  text: string;
  /** Default: config TTS_VOICE. */
  voice?: string;
  /** Style names, e.g. "whisper" or ["happy", "speed up"], sent as one leading `<style>` tag. */
  style?: string | readonly string[];
  /** Sing the text: `<style>sing</style>` replaces any other style. */
  sing?: boolean;
  /** An optional user message about tone and delivery (the spec recommends one; it is not spoken). */
  instruction?: string;
  /** Default: config TTS_MODEL. */
  model?: string;
  signal?: AbortSignal;
}

export interface Speech {
  /** A complete WAV file. */
  wav: Buffer;
  usage: Usage;
}

/** Streamed speech: 24 kHz, mono, 16-bit little-endian. */
export const PCM16_SAMPLE_RATE = 24_000;

function speechRequest(deps: CapabilityDeps, input: SpeechInput, format: 'wav' | 'pcm16'): ChatRequest {
  const { config } = deps;
  const spoken = speechText(input.text, input.style, input.sing);
  if (spoken.replace(/^<style>[^<]*<\/style>/, '').trim() === '') throw new MediaError('There is no text to speak.', { code: 'empty' });
  const messages: ChatMessage[] = [];
  if (input.instruction?.trim()) messages.push({ role: 'user', content: input.instruction.trim() });
  // The service speaks the assistant message, never a user message (spec §2.7).
  messages.push({ role: 'assistant', content: spoken });
  return { model: input.model ?? config.models.tts, messages, audio: { format, voice: input.voice ?? config.tts.voice } };
}

function isWav(data: Buffer): boolean {
  return data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WAVE';
}

/** Text to a complete WAV file with TTS_MODEL. */
export async function synthesize(deps: CapabilityDeps, input: SpeechInput): Promise<Speech> {
  const request = speechRequest(deps, input, 'wav');
  const result = await deps.client.chat(request, { signal: input.signal, capability: 'synthesize' });
  if (!result.audio || !isWav(result.audio)) {
    throw new ResponseFormatError('The AI service did not return a WAV file for the speech.', { requestId: result.requestId });
  }
  return { wav: result.audio, usage: result.usage };
}

/**
 * Text to streamed PCM (pcm16, 24 kHz mono s16le). The service cuts its chunks anywhere, so an odd
 * byte is carried into the next chunk and every Buffer yielded holds whole samples. Leaving the loop
 * early closes the request.
 */
export async function* synthesizeStream(deps: CapabilityDeps, input: SpeechInput): AsyncGenerator<Buffer, void> {
  const request = speechRequest(deps, input, 'pcm16');
  const stream = deps.client.chatStream(request, { signal: input.signal, capability: 'synthesize_stream' });
  let carry: number | undefined;
  for await (const delta of stream) {
    if (delta.type !== 'audio' || delta.data.length === 0) continue;
    let bytes = delta.data;
    if (carry !== undefined) {
      const joined = Buffer.allocUnsafe(bytes.length + 1);
      joined[0] = carry;
      bytes.copy(joined, 1);
      bytes = joined;
      carry = undefined;
    }
    if (bytes.length % 2 === 1) {
      carry = bytes[bytes.length - 1];
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    if (bytes.length > 0) yield bytes;
  }
  if (carry !== undefined) deps.logger.debug({ requestId: stream.requestId }, 'speech stream ended mid-sample; its last byte was dropped');
}
