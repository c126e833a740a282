import { HeraldError } from '../errors.ts';

/** Marks the error a response over the limit raises, so a connection can tell it from a dropped line. */
export const TOO_LARGE = 'response larger than the limit';
/** Marks the error an event stream raises when one event (or a line never ended) passes the limit. */
export const EVENT_TOO_LARGE = 'stream event larger than the limit';

const CR = 0x0d;
const LF = 0x0a;

/**
 * `fetch` for an MCP server's HTTP transport, bounded before anything is decoded: a POST response (one call's answer,
 * as JSON or an event stream) fails once it passes `maxBytes`; a GET event stream, which may carry a whole session,
 * fails once one event passes `maxBytes`, which also bounds what its parser buffers.
 */
export function boundedFetch(maxBytes: number): (url: string | URL, init?: RequestInit) => Promise<Response> {
  const limit = `(${maxBytes / 1024 / 1024} MB)`;
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    let tooLarge: (chunk: Uint8Array) => string | undefined;
    if (init?.method === 'POST') {
      let seen = 0;
      tooLarge = (chunk) => {
        seen += chunk.byteLength;
        return seen > maxBytes ? TOO_LARGE : undefined;
      };
    } else if ((init?.method ?? 'GET') === 'GET') {
      const events = eventSizes();
      tooLarge = (chunk) => (events.longest(chunk) > maxBytes ? EVENT_TOO_LARGE : undefined);
    } else return response;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const problem = tooLarge(chunk);
          if (problem) controller.error(new HeraldError(`${problem} ${limit}`, { code: 'mcp_too_large' }));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * Follows an event stream's bytes and tells the size of the longest event seen in each chunk, counting from the
 * blank line that ended the previous one (a line ends with CR, LF or CRLF).
 */
function eventSizes(): { longest(chunk: Uint8Array): number } {
  let size = 0;
  let atLineStart = true;
  let previous = 0;
  return {
    longest(chunk) {
      let longest = size;
      for (const byte of chunk) {
        if (byte === LF && previous === CR) {
          previous = byte;
          continue;
        }
        previous = byte;
        if (byte === CR || byte === LF) {
          if (atLineStart) size = 0;
          atLineStart = true;
        } else {
          atLineStart = false;
          size += 1;
          if (size > longest) longest = size;
        }
      }
      return longest;
    },
  };
}
