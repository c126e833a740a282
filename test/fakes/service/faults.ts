/** How a streaming response misbehaves. Event counts are 0-based positions in the SSE event sequence. */
export interface StreamFault {
  /** `\r\n` instead of `\n` as line ending. */
  crlf?: boolean;
  /** `:` comment lines: one event-less comment block first, and one comment line heading every event. */
  comments?: boolean;
  /** Write the byte stream in small pieces that ignore event and UTF-8 boundaries; `true` uses 1,2,3,5,8,13,7,4 bytes. */
  splitBytes?: boolean | number[];
  /** Pause between split pieces (ms, default 1), so they reach the client separately. */
  splitPauseMs?: number;
  /** Stop sending after this many events, for `stallMs` (default: until the client goes away). */
  stallAfter?: number;
  stallMs?: number;
  /** Reset the TCP connection after this many events. */
  resetAfter?: number;
  /** Send a data line of invalid JSON before the event at this position. */
  malformedAt?: number;
  /** No `data: [DONE]` (chat) at the end. */
  omitDone?: boolean;
  /** No finish_reason chunk (chat) / no message_delta and message_stop (messages). */
  omitFinish?: boolean;
}

/**
 * A fault for the next matching request(s). Push it onto `emulator.faults`; it applies to the first
 * `times` (default 1) requests that match, after authentication succeeded. `times` is decremented
 * in place and the fault removed when it reaches 0. A fault with `stream` and no `status` only
 * matches streaming requests.
 */
export interface Fault {
  endpoint?: 'chat' | 'messages';
  model?: string;
  times?: number;
  /** Wait this long before sending the response headers (slow first byte). */
  delayMs?: number;
  /** Answer with this status instead of handling the request (429, 500, 502, 503, 408, ...). */
  status?: number;
  /** Retry-After header value (seconds, or an HTTP date string). */
  retryAfter?: number | string;
  /** Raw response body instead of the endpoint's JSON error (e.g. an HTML page from a proxy). */
  body?: string;
  contentType?: string;
  stream?: StreamFault;
}

export interface FaultTarget {
  endpoint: 'chat' | 'messages';
  model: unknown;
  stream: boolean;
}

function matches(fault: Fault, target: FaultTarget): boolean {
  if (fault.endpoint !== undefined && fault.endpoint !== target.endpoint) return false;
  if (fault.model !== undefined && fault.model !== target.model) return false;
  if (fault.stream && fault.status === undefined && !target.stream) return false;
  return true;
}

export function takeFault(faults: Fault[], target: FaultTarget): Fault | undefined {
  const index = faults.findIndex((f) => matches(f, target));
  if (index < 0) return undefined;
  const fault = faults[index]!;
  fault.times = (fault.times ?? 1) - 1;
  if (fault.times <= 0) faults.splice(index, 1);
  return fault;
}
