import { HeraldError } from '../errors.ts';

/** Marks the error a response over the limit raises, so a connection can tell it from a dropped line. */
export const TOO_LARGE = 'response larger than the limit';

/**
 * `fetch` for an MCP server's HTTP transport whose POST responses (each call's answer, as JSON or an event stream)
 * fail once they pass `maxBytes`, before more is read. The legacy transport's GET stream carries every answer of a
 * session and is left to the per-message checks.
 */
export function boundedFetch(maxBytes: number): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.body || init?.method !== 'POST') return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            controller.error(new HeraldError(`${TOO_LARGE} (${maxBytes / 1024 / 1024} MB)`, { code: 'mcp_too_large' }));
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
