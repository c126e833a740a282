import type { IncomingHttpHeaders } from 'node:http';
import type { Transcriber } from './asr.ts';
import type { Fault } from './faults.ts';
import type { ModelSpec } from './models.ts';
import type { Pace } from './pacing.ts';
import type { PromptCache } from './usage.ts';

/** One request as the emulator received it. */
export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the body was not JSON. */
  body: unknown;
  rawBody: string;
  endpoint: 'chat' | 'messages' | null;
  /** The `x-request-id` the emulator answered with. */
  requestId: string;
  receivedAt: number;
  /** Status of the response, set when its headers are sent. */
  status?: number;
  /** Streamed answers: SSE events written so far, of the `total` the answer has (a cancelled stream stops short). */
  streamed?: { sent: number; total: number };
  /**
   * Set when the connection closes: when, and whether the client hung up before the whole response was written
   * (it cancelled the request) rather than the emulator ending it or resetting it as a fault.
   */
  closed?: { at: number; byClient: boolean };
  /** Chat requests with earlier assistant tool-call turns: whether their reasoning_content was kept (see tool-calls.ts). */
  reasoningKept?: boolean;
}

export interface EmulatorState {
  apiKey: string;
  altPrefix: string;
  models: ModelSpec[];
  voices: string[];
  pace: Pace;
  transcripts: Map<string, string>;
  transcriber?: Transcriber;
  requests: RecordedRequest[];
  faults: Fault[];
  promptCache: PromptCache;
  /** reasoning_content sent with each tool call id ('' when thinking was off). */
  reasoningSent: Map<string, string>;
  maxBodyBytes: number;
}
