import { ConfigError } from '../../src/config/config-error.ts';
import { HeraldError, type ErrorKind } from '../../src/errors.ts';
import { redactText } from '../../src/log/redact.ts';

/** A mistake in the command line itself; shown with a hint to `herald --help`. */
export class UsageError extends HeraldError {
  constructor(message: string) {
    super(message, { code: 'usage', kind: 'invalid_input' });
  }
}

/** A reply that ended with an error event; its message is already fit to show. */
export class ReplyFailed extends HeraldError {
  constructor(message: string, kind: ErrorKind) {
    super(message, { code: 'reply_failed', kind });
  }
}

/**
 * One line for stderr. The person at the terminal runs Herald, so they also see the operator's messages
 * (`internal` kind, e.g. a missing package) that chat users never get; never a stack.
 */
export function errorLine(error: unknown, secrets: readonly string[]): string {
  let text: string;
  if (error instanceof UsageError) text = `${error.message} (see herald --help)`;
  else if (error instanceof ConfigError) text = `configuration: ${error.message}`;
  else if (error instanceof HeraldError) text = error.message;
  else if (isNodeError(error) && error.code === 'ENOENT') text = `file not found: ${error.path ?? 'unknown'}`;
  else if (isNodeError(error) && (error.code === 'EACCES' || error.code === 'EISDIR')) text = `cannot use ${error.path ?? 'the file'}: ${error.code}`;
  else text = `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  return `herald: ${redactText(text, secrets).replace(/\s*\n\s*/g, ' ')}`;
}

function isNodeError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}
