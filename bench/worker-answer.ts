import type { Worker } from 'node:worker_threads';

/** The next message from `worker` that carries `key`, as its value; rejects if the worker fails first. */
export function workerAnswer<T>(worker: Worker, key: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      worker.off('message', onMessage);
      worker.off('error', reject);
      resolve(message[key] as T);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}
