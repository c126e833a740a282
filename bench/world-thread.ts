import { parentPort, Worker } from 'node:worker_threads';

/** A bench's world (fakes, emulator) in a worker thread of its own, driven by request messages. */
export interface WorldThread {
  call<T>(op: string, args?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Starts the world module at `url` and resolves once it is ready; `stop` has it close its servers first. */
export async function startWorldThread(url: URL): Promise<WorldThread> {
  const worker = new Worker(url);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve());
  });
  worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (error !== undefined) waiting?.reject(new Error(error));
    else waiting?.resolve(result);
  });
  const call = <T>(op: string, args?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, op, args });
    });
  return {
    call,
    stop: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}

/** In the world's thread: answers each request with its operation's result, then tells the bench it is ready. */
export function serveWorld(operations: Record<string, (args: any) => unknown>): void {
  parentPort!.on('message', async ({ id, op, args }: { id: number; op: string; args: unknown }) => {
    try {
      parentPort!.postMessage({ id, result: await operations[op]!(args) });
    } catch (error) {
      parentPort!.postMessage({ id, error: (error as Error).message });
    }
  });
  parentPort!.postMessage({ ready: true });
}
