import { Worker } from 'node:worker_threads';
import type { MediaError } from '../errors.ts';
import type { MediaTask, MediaTaskResult, WorkerReply } from './media-worker-main.ts';
import { rebuildWorkerFailure } from './media-worker-failure.ts';

const WORKER_URL = new URL('./media-worker-main.ts', import.meta.url);
/** pdf.js keeps its parsed objects on the JS heap; pixels live outside it, within the media budget. */
const WORKER_HEAP_MB = 256;

/** Why a media worker was ended before its job was done. */
export type WorkerLimit = 'time' | 'memory';

/**
 * Runs a decoder that would hold the event loop (the BMP decoder, libheif, pdf.js) on a worker thread of its
 * own, ended when the job is done, after `timeoutMs`, or when its heap is full; `refusal` is the error for the
 * last two. Those decoders never run sharp, so a worker can be terminated at any point. The worker's console goes
 * nowhere: libheif prints failures there.
 */
export function runMediaTask<K extends MediaTask['kind']>(
  task: Extract<MediaTask, { kind: K }>,
  timeoutMs: number,
  refusal: (limit: WorkerLimit) => MediaError,
): Promise<MediaTaskResult<K>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, { stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(refusal('time'))), timeoutMs);
    worker.on('message', (reply: WorkerReply<K>) => {
      settle(() => ('result' in reply ? resolve(reply.result) : reject(rebuildWorkerFailure(reply.failure))));
    });
    worker.on('error', (error: Error & { code?: string }) => {
      settle(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? refusal('memory') : error));
    });
    worker.on('exit', (code) => settle(() => reject(new Error(`media worker exited with code ${code}`))));
    // A copy of its own to move: the caller's bytes may share a pooled buffer.
    const bytes = new Uint8Array(task.bytes);
    worker.postMessage({ ...task, bytes }, [bytes.buffer]);
  });
}
