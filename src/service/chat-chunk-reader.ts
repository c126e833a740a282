import { MarkerRewriter, isIdentityRemap, markerRemap, normalizeCitations } from './citations.ts';
import { errorFromStreamPayload } from './error-response.ts';
import { ResponseFormatError } from './errors.ts';
import { ToolCallAssembler } from './tool-call-assembler.ts';
import type { ChatDelta, Usage } from './types.ts';
import { usageFromChat } from './usage.ts';

interface ChunkDelta {
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: unknown;
  annotations?: unknown;
  audio?: { data?: unknown } | null;
}

interface Chunk {
  model?: unknown;
  usage?: unknown;
  error?: unknown;
  choices?: Array<{ delta?: ChunkDelta; message?: ChunkDelta; finish_reason?: unknown }>;
}

/** Turns chat-completions stream chunks into ChatDeltas; `end` emits the held-back ones, finish last. */
export class ChatChunkReader {
  model = '';
  done = false;
  readonly #secrets: readonly string[];
  readonly #tools = new ToolCallAssembler();
  #usage: Usage | undefined;
  #finishReason: string | null = null;
  #citationsSeen = false;
  #content: MarkerRewriter | undefined;
  #reasoning: MarkerRewriter | undefined;

  constructor(secrets: readonly string[]) {
    this.#secrets = secrets;
  }

  read(data: string, out: ChatDelta[], requestId?: string): void {
    if (this.done) return;
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch (cause) {
      throw new ResponseFormatError(`The AI service sent a malformed stream chunk (${excerpt(data)}).`, { requestId, cause });
    }
    if (chunk === null || typeof chunk !== 'object') {
      throw new ResponseFormatError(`The AI service sent an unexpected stream chunk (${excerpt(data)}).`, { requestId });
    }
    if (chunk.error) throw errorFromStreamPayload(chunk, this.#secrets, requestId);
    if (chunk.usage) this.#usage = usageFromChat(chunk.usage);
    if (typeof chunk.model === 'string') this.model = chunk.model;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? choice.message;
    if (delta) {
      if (!this.#citationsSeen && Array.isArray(delta.annotations) && delta.annotations.length > 0) {
        this.#citationsSeen = true;
        const { citations, remap } = normalizeCitations(delta.annotations);
        out.push({ type: 'citations', citations, remap });
        if (!isIdentityRemap(remap)) {
          this.#content = new MarkerRewriter(markerRemap(remap));
          this.#reasoning = new MarkerRewriter(markerRemap(remap));
        }
      }
      const reasoning = delta.reasoning_content;
      if (typeof reasoning === 'string' && reasoning !== '') {
        const text = this.#reasoning ? this.#reasoning.push(reasoning) : reasoning;
        if (text !== '') out.push({ type: 'reasoning', text });
      }
      const content = delta.content;
      if (typeof content === 'string' && content !== '') {
        const text = this.#content ? this.#content.push(content) : content;
        if (text !== '') out.push({ type: 'content', text });
      }
      if (Array.isArray(delta.tool_calls)) this.#tools.add(delta.tool_calls);
      const audio = delta.audio?.data;
      if (typeof audio === 'string' && audio !== '') out.push({ type: 'audio', data: Buffer.from(audio, 'base64') });
    }
    if (typeof choice.finish_reason === 'string') {
      this.#finishReason = choice.finish_reason;
      if (this.#tools.size > 0) out.push({ type: 'tool_calls', calls: this.#tools.take() });
    }
  }

  end(out: ChatDelta[]): void {
    const reasoning = this.#reasoning?.flush();
    if (reasoning) out.push({ type: 'reasoning', text: reasoning });
    const content = this.#content?.flush();
    if (content) out.push({ type: 'content', text: content });
    if (this.#tools.size > 0) out.push({ type: 'tool_calls', calls: this.#tools.take() });
    if (this.#usage) out.push({ type: 'usage', usage: this.#usage });
    out.push({ type: 'finish', reason: this.#finishReason });
  }
}

export function excerpt(data: string): string {
  const flat = data.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 59)}…` : flat);
}
