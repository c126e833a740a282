import { MediaError, PackageLoadError, type MediaErrorCode } from '../errors.ts';
import { NoTextLayerError } from './document/read-pdf.ts';

/**
 * Why a media worker's job failed, as it crosses to the caller's thread: only plain data survives the move, so the
 * errors callers tell apart are named here and rebuilt on the other side with their class.
 */
export type WorkerFailure =
  | { type: 'no-text-layer'; name: string }
  | { type: 'media'; message: string; code: MediaErrorCode }
  | { type: 'package'; packageName: string; reason: string }
  | { type: 'other'; message: string };

/** The failure of a job, on the worker. */
export function describeWorkerFailure(error: unknown): WorkerFailure {
  if (error instanceof NoTextLayerError) return { type: 'no-text-layer', name: error.fileName };
  if (error instanceof MediaError) return { type: 'media', message: error.message, code: error.code };
  if (error instanceof PackageLoadError) {
    const reason = error.cause instanceof Error ? error.cause.message : String(error.cause);
    return { type: 'package', packageName: error.packageName, reason };
  }
  return { type: 'other', message: error instanceof Error ? error.message : String(error) };
}

/** The error a failed job throws on the caller's thread. */
export function rebuildWorkerFailure(failure: WorkerFailure): Error {
  switch (failure.type) {
    case 'no-text-layer':
      return new NoTextLayerError(failure.name);
    case 'media':
      return new MediaError(failure.message, { code: failure.code });
    case 'package':
      return new PackageLoadError(failure.packageName, new Error(failure.reason));
    case 'other':
      return new Error(failure.message);
  }
}
