/**
 * The one way Herald downloads a user's files, whatever the platform: sizes the platform reports are checked before
 * any request, bytes are counted as they arrive (per file and per message) and the transfer stops the moment a cap
 * passes, each file has a time limit, a message's files download a few at a time (and the whole process's a few
 * more), and the caller's signal cancels them all. The platform supplies only the request (its own authentication
 * and redirects).
 */
import { HeraldError } from '../errors.ts';

const MB = 1024 * 1024;

export type DownloadErrorCode = 'too_large' | 'timed_out' | 'download_failed';

/** A user's file could not be downloaded: too large, too slow, or not served. */
export class DownloadError extends HeraldError {
  declare readonly code: DownloadErrorCode;

  constructor(message: string, options: { code: DownloadErrorCode; cause?: unknown }) {
    super(message, options);
  }
}

export interface DownloadLimits {
  /** Largest single file. */
  fileBytes: number;
  /** Largest total of one message's files. */
  messageBytes: number;
  /** Longest one file may take, from its request to its last byte. */
  fileTimeoutMs: number;
  /** Files of one message downloaded at the same time. */
  concurrency: number;
}

export const DOWNLOAD_LIMITS: DownloadLimits = {
  fileBytes: 25 * MB,
  messageBytes: 50 * MB,
  fileTimeoutMs: 60_000,
  concurrency: 3,
};

export interface FileRequest {
  name: string;
  /** The size the platform reports, when it does: a file over the cap is refused without a request. */
  size?: number;
  /** Starts the request; resolves to a response whose status the platform has checked. */
  open(signal: AbortSignal): Promise<Response>;
  /** Rejects what was served (throws) once every byte is in, e.g. a sign-in page instead of the file. */
  verify?(data: Buffer, response: Response): void;
}

export interface DownloadedFile {
  data: Buffer;
  /** The Content-Type the host sent. */
  contentType: string | null;
}

function sizeText(bytes: number): string {
  const [value, unit] = bytes >= MB ? [bytes / MB, 'MB'] : [bytes / 1024, 'KB'];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}

export function fileTooLarge(name: string, maxBytes: number, size?: number): DownloadError {
  const actual = size === undefined ? 'larger than' : `${sizeText(size)}, over`;
  return new DownloadError(`"${name}" is ${actual} the ${sizeText(maxBytes)} I can read.`, { code: 'too_large' });
}

function messageTooLarge(maxBytes: number): DownloadError {
  return new DownloadError(`These files add up to more than the ${sizeText(maxBytes)} I can read from one message.`, { code: 'too_large' });
}

/** Refuses, before any request, files whose reported sizes pass the caps. */
function checkReportedSizes(files: readonly FileRequest[], limits: DownloadLimits): void {
  const oversized = files.find((file) => (file.size ?? 0) > limits.fileBytes);
  if (oversized) throw fileTooLarge(oversized.name, limits.fileBytes, oversized.size);
  const total = files.reduce((sum, file) => sum + (file.size ?? 0), 0);
  if (total > limits.messageBytes) throw messageTooLarge(limits.messageBytes);
}

/** Downloads running in this process at most, whatever the number of messages: the rest wait their turn. */
const MAX_DOWNLOADS_IN_FLIGHT = 8;

/** Turns to download, shared by every message of the process. */
class DownloadSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves once a turn is free (rejects when `signal` aborts first); call the returned function when done. */
  async take(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#free > 0) this.#free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          this.#waiting.splice(this.#waiting.indexOf(turn), 1);
          reject(signal.reason);
        };
        this.#waiting.push(turn);
        signal.addEventListener('abort', leave, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}

const slots = new DownloadSlots(MAX_DOWNLOADS_IN_FLIGHT);

/** Bytes a message's downloads have received so far, shared by its files. */
class MessageTally {
  #bytes = 0;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.#maxBytes) throw messageTooLarge(this.#maxBytes);
  }
}

async function downloadOne(file: FileRequest, limits: DownloadLimits, tally: MessageTally, cancel: AbortSignal): Promise<DownloadedFile> {
  const release = await slots.take(cancel);
  try {
    return await transfer(file, limits, tally, cancel);
  } finally {
    release();
  }
}

async function transfer(file: FileRequest, limits: DownloadLimits, tally: MessageTally, cancel: AbortSignal): Promise<DownloadedFile> {
  const timeout = AbortSignal.timeout(limits.fileTimeoutMs);
  const signal = AbortSignal.any([cancel, timeout]);
  try {
    const response = await file.open(signal);
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > limits.fileBytes) {
      await response.body?.cancel();
      throw fileTooLarge(file.name, limits.fileBytes, declared);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of response.body ?? []) {
      total += chunk.byteLength;
      if (total > limits.fileBytes) throw fileTooLarge(file.name, limits.fileBytes);
      tally.add(chunk.byteLength);
      chunks.push(chunk);
    }
    const data = Buffer.concat(chunks, total);
    file.verify?.(data, response);
    return { data, contentType: response.headers.get('content-type') };
  } catch (error) {
    if (cancel.aborted) throw cancel.reason;
    if (timeout.aborted) {
      throw new DownloadError(`"${file.name}" took longer than ${limits.fileTimeoutMs / 1000} s to download, so I stopped.`, {
        code: 'timed_out',
        cause: error,
      });
    }
    if (error instanceof HeraldError) throw error;
    throw new DownloadError(`I couldn't download "${file.name}".`, { code: 'download_failed', cause: error });
  }
}

/**
 * Downloads one message's files, `limits.concurrency` at a time, in the order given. The first failure stops the
 * others and is thrown: a DownloadError (or the platform's own HeraldError), or `signal`'s reason once it aborts.
 */
export async function downloadFiles(
  files: readonly FileRequest[],
  options: { limits?: DownloadLimits; signal?: AbortSignal } = {},
): Promise<DownloadedFile[]> {
  const limits = options.limits ?? DOWNLOAD_LIMITS;
  options.signal?.throwIfAborted();
  checkReportedSizes(files, limits);
  const stop = new AbortController();
  const cancel = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const tally = new MessageTally(limits.messageBytes);
  const results: DownloadedFile[] = new Array(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length && !cancel.aborted) {
      const index = next++;
      results[index] = await downloadOne(files[index]!, limits, tally, cancel);
    }
  };
  const workers = Array.from({ length: Math.min(limits.concurrency, files.length) }, () =>
    worker().catch((error: unknown) => {
      if (!stop.signal.aborted) stop.abort(error);
      throw error;
    }),
  );
  await Promise.allSettled(workers);
  options.signal?.throwIfAborted();
  if (stop.signal.aborted) throw stop.signal.reason;
  return results;
}

/** One file on its own (a command's attachment): the same caps, time limit and cancellation. */
export async function downloadFile(file: FileRequest, options: { limits?: DownloadLimits; signal?: AbortSignal } = {}): Promise<DownloadedFile> {
  const [downloaded] = await downloadFiles([file], options);
  return downloaded!;
}
