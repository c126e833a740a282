import { HeraldError } from '../errors.ts';

export type ScheduleErrorCode =
  | 'invalid'
  | 'unparseable'
  | 'past'
  | 'too_frequent'
  | 'too_many'
  | 'not_found'
  | 'not_permitted'
  | 'bad_zone'
  | 'unavailable';

const INVALID_INPUT = new Set<ScheduleErrorCode>(['invalid', 'unparseable', 'past', 'bad_zone']);

/** A schedule could not be made or changed; the message says why, fit to show the user. */
export class ScheduleError extends HeraldError {
  declare readonly code: ScheduleErrorCode;

  constructor(message: string, code: ScheduleErrorCode) {
    super(message, { code, kind: INVALID_INPUT.has(code) ? 'invalid_input' : 'refused' });
  }
}
