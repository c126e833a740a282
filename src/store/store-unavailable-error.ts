import { HeraldError } from '../errors.ts';

/** The store did not answer in time, or failed: the question cannot be answered with its memory right now. */
export class StoreUnavailableError extends HeraldError {
  declare readonly code: 'store_unavailable';
  /** The Store method that failed, for logs. */
  readonly operation: string;

  constructor(operation: string, options: { cause?: unknown } = {}) {
    super("Herald's memory is unreachable right now; try again in a minute.", { code: 'store_unavailable', cause: options.cause });
    this.operation = operation;
  }
}
