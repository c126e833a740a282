import { Worker } from 'node:worker_threads';
import type { MediaError } from '../errors.ts';
import type { MediaTask, MediaTaskResult, WorkerReply } from './media-worker-main.ts';
import { rebuildWorkerFailure } from './media-worker-failure.ts';

const WORKER_URL = new URL('./media-worker-main.ts', import.meta.url);
/** pdf.js keeps its parsed objects on the JS heap; pixels live outside it, within the media budget. */
const WORKER_HEAP_MB = 256;
/** A worker that finished its job cleanly waits this long for the next one, so a run of files pays its start-up once. */
const IDLE_MS = 30_000;
/** Jobs one worker runs before it is replaced, so that nothing a decoder leaves behind builds up. */
const JOBS_PER_WORKER = 50;

/** Why a media worker was ended before its job was done. */
export type WorkerLimit = 'time' | 'memory';

interface Spare {
  worker: Worker;
  jobs: number;
  timer: NodeJS.Timeout;
  onExit: () => void;
}

/** At most one worker waits for work; it does not keep the process alive. */
let spare: Spare | undefined;

function takeWorker(): { worker: Worker; jobs: number } {
  if (spare) {
    const { worker, jobs, timer, onExit } = spare;
    spare = undefined;
    clearTimeout(timer);
    worker.off('exit', onExit);
    worker.ref();
    return { worker, jobs };
  }
  const worker = new Worker(WORKER_URL, { stdout: true, stderr: true, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  worker.stdout.resume();
  worker.stderr.resume();
  return { worker, jobs: 0 };
}

function park(worker: Worker, jobs: number): void {
  if (spare || jobs >= JOBS_PER_WORKER) {
    void worker.terminate();
    return;
  }
  const forget = () => {
    clearTimeout(timer);
    if (spare?.worker === worker) spare = undefined;
  };
  const timer = setTimeout(() => {
    forget();
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  worker.unref();
  worker.once('exit', forget);
  spare = { worker, jobs, timer, onExit: forget };
}

/**
 * Runs a decoder that would hold the event loop (the BMP decoder, libheif, pdf.js) on a worker thread, ended
 * after `timeoutMs` or when its heap is full (`refusal` is the error for those two) and after any failure. A
 * worker whose job succeeded is kept for the next job. Those decoders never run sharp, so a worker can be
 * terminated at any point. The worker's console goes nowhere: libheif prints failures there.
 */
export function runMediaTask<K extends MediaTask['kind']>(
  task: Extract<MediaTask, { kind: K }>,
  timeoutMs: number,
  refusal: (limit: WorkerLimit) => MediaError,
): Promise<MediaTaskResult<K>> {
  return new Promise((resolve, reject) => {
    const { worker, jobs } = takeWorker();
    let settled = false;
    const settle = (outcome: () => void, reusable = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (reusable) park(worker, jobs + 1);
      else void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(refusal('time'))), timeoutMs);
    const onMessage = (reply: WorkerReply<K>) => {
      if ('result' in reply) settle(() => resolve(reply.result), true);
      else settle(() => reject(rebuildWorkerFailure(reply.failure)));
    };
    const onError = (error: Error & { code?: string }) => {
      settle(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? refusal('memory') : error));
    };
    const onExit = (code: number) => settle(() => reject(new Error(`media worker exited with code ${code}`)));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    // A copy of its own to move: the caller's bytes may share a pooled buffer.
    const bytes = new Uint8Array(task.bytes);
    worker.postMessage({ ...task, bytes }, [bytes.buffer]);
  });
}
