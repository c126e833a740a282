/**
 * What kind of failure an error is: a bounded set, used as the metrics label and as the `code` of a reply's
 * error event. `internal` errors are the operator's to fix; a user only ever sees a generic apology for them.
 */
export type ErrorKind =
  | 'rate_limited'
  | 'daily_budget'
  | 'busy'
  | 'too_long'
  | 'media'
  | 'service'
  | 'voice'
  | 'invalid_input'
  | 'refused'
  | 'config'
  | 'cancelled'
  | 'gone'
  | 'internal';

export interface HeraldErrorOptions {
  /** Stable and specific, for programs and logs (e.g. `corrupt`, `timeout`). */
  code: string;
  /** Default `refused`: the request could not be done and `message` says why. */
  kind?: ErrorKind;
  /** When trying again later will help. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * The root of every error Herald raises on purpose. `message` is fit to show a user (no secrets, no stack) unless
 * `kind` is `internal`, when it is written for the operator (log, command line); `cause` keeps the original.
 */
export class HeraldError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: HeraldErrorOptions) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.kind = options.kind ?? 'refused';
    this.retryAfterMs = options.retryAfterMs;
  }
}

export type MediaErrorCode = 'empty' | 'corrupt' | 'unsupported_format' | 'too_large' | 'too_long' | 'ffmpeg_missing' | 'conversion_failed';

/** A user's file could not be read, converted or fitted within the service's limits. */
export class MediaError extends HeraldError {
  declare readonly code: MediaErrorCode;

  constructor(message: string, options: { code: MediaErrorCode; cause?: unknown }) {
    super(message, { ...options, kind: 'media' });
  }
}

/** The reply was stopped: its asker went away, or an edit of the question replaced it. */
export class CancelledError extends HeraldError {
  constructor(message = 'The reply was cancelled.') {
    super(message, { code: 'cancelled', kind: 'cancelled' });
  }
}

/** Another reply in the same conversation held the lock for longer than a new question may wait. */
export class LockBusyError extends HeraldError {
  constructor(waitedMs: number) {
    super(`I'm still busy with earlier messages in this conversation (waited ${Math.round(waitedMs / 1000)} s). Please try again shortly.`, {
      code: 'busy',
      kind: 'busy',
    });
  }
}

/** The user's turn alone, with the system prompt, is more than the model's context holds. */
export class ContextTooLargeError extends HeraldError {
  constructor(tokens: number, budget: number) {
    super(
      `That is too much for me to read at once (about ${tokens.toLocaleString('en-US')} tokens; my limit is ${budget.toLocaleString('en-US')}). ` +
        'Please shorten it or split it into parts.',
      { code: 'too_long', kind: 'too_long' },
    );
  }
}

/**
 * A package Herald loads only once it is needed (a platform's library, a store's driver, an image codec) could
 * not be loaded: it is missing, or its native part does not load on this machine. The fix is the operator's
 * (`internal`), so chat users get the usual apology while the log and the command line name the package.
 */
export class PackageLoadError extends HeraldError {
  readonly packageName: string;

  constructor(packageName: string, cause: unknown) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!.trim();
    super(`could not load the package "${packageName}" (${reason}); reinstall Herald's dependencies with npm ci`, {
      code: 'package_missing',
      kind: 'internal',
      cause,
    });
    this.packageName = packageName;
  }
}

const GENERIC_FAILURE = 'Something went wrong while answering; please try again.';

/** What a user is told about an error, and its kind for metrics. */
export interface ErrorReport {
  kind: ErrorKind;
  message: string;
  retryAfterMs?: number;
}

/** The one mapping from any error to what a user sees: our own errors say why, anything else is an apology. */
export function describeError(error: unknown): ErrorReport {
  if (!(error instanceof HeraldError) || error.kind === 'internal') return { kind: 'internal', message: GENERIC_FAILURE };
  return { kind: error.kind, message: error.message, ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }) };
}
