import type { ServerResponse } from 'node:http';
import type { StreamFault } from './faults.ts';
import { sleep } from './sleep.ts';
import type { RecordedRequest } from './state.ts';

export interface SseEvent {
  /** The `event:` field (messages format); chat chunks have none. */
  event?: string;
  data: string;
  /** Pause before this event (pacing). */
  delayMs?: number;
  /** Lets faults drop the finishing events or the end marker. */
  tag?: 'finish' | 'done';
}

const defaultSplit = [1, 2, 3, 5, 8, 13, 7, 4];
/** Time for the client to read what was sent before the connection is reset. */
const resetGraceMs = 30;

function writeRaw(res: ServerResponse, chunk: Buffer, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    res.write(chunk, done);
  });
}

/**
 * Streams SSE events with pacing, applying a stream fault if one was chosen for this request; `record` follows
 * how many were written and learns of a reset the fault made.
 */
export async function writeSse(
  res: ServerResponse,
  events: SseEvent[],
  fault: StreamFault | undefined,
  signal: AbortSignal,
  record: Pick<RecordedRequest, 'streamed' | 'closed'>,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.socket?.setNoDelay(true);
  const newline = fault?.crlf ? '\r\n' : '\n';
  const sizes = Array.isArray(fault?.splitBytes) ? fault.splitBytes : fault?.splitBytes ? defaultSplit : undefined;
  let piece = 0;

  const send = async (text: string): Promise<void> => {
    const bytes = Buffer.from(text, 'utf8');
    if (!sizes) return writeRaw(res, bytes, signal);
    for (let at = 0; at < bytes.length && !signal.aborted; ) {
      const size = Math.max(1, sizes[piece++ % sizes.length]!);
      await writeRaw(res, bytes.subarray(at, at + size), signal);
      at += size;
      await sleep(fault?.splitPauseMs ?? 1, signal);
    }
  };

  if (fault?.comments) await send(`: emulator stream${newline}${newline}`);
  const progress = { sent: 0, total: events.length };
  record.streamed = progress;
  let sent = 0;
  for (const event of events) {
    if ((event.tag === 'finish' && fault?.omitFinish) || (event.tag === 'done' && fault?.omitDone)) continue;
    if (event.delayMs) await sleep(event.delayMs, signal);
    if (fault?.stallAfter === sent) await sleep(fault.stallMs ?? Infinity, signal);
    if (fault?.resetAfter === sent) {
      await sleep(resetGraceMs, signal);
      record.closed ??= { at: Date.now(), byClient: false };
      res.socket?.resetAndDestroy();
      return;
    }
    if (signal.aborted) return;
    if (fault?.malformedAt === sent) await send(`data: {"id":"malformed","choices":[{"delta":{"content":"oo${newline}${newline}`);
    const comment = fault?.comments ? `: keep-alive${newline}` : '';
    const name = event.event ? `event: ${event.event}${newline}` : '';
    await send(`${comment}${name}data: ${event.data}${newline}${newline}`);
    sent += 1;
    progress.sent = sent;
  }
  res.end();
}
