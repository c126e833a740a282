/**
 * Every error Herald raises on purpose derives from HeraldError: `code` is stable for programs,
 * `message` is fit to show a user (no secrets, no stack), `cause` keeps the original for logs.
 */
export class HeraldError extends Error {
  readonly code: string;

  constructor(message: string, options: { code: string; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }
}

export type MediaErrorCode =
  | 'empty'
  | 'corrupt'
  | 'unsupported_format'
  | 'too_large'
  | 'too_long'
  | 'ffmpeg_missing'
  | 'conversion_failed';

/** A user's file could not be read, converted or fitted within the service's limits. */
export class MediaError extends HeraldError {
  declare readonly code: MediaErrorCode;

  constructor(message: string, options: { code: MediaErrorCode; cause?: unknown }) {
    super(message, options);
  }
}
