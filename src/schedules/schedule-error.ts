import { HeraldError } from '../errors.ts';

export type ScheduleErrorCode = 'unparseable' | 'past' | 'too_frequent' | 'too_many' | 'not_found' | 'not_permitted' | 'bad_zone';

/** A schedule could not be made or changed; the message says why, fit to show the user. */
export class ScheduleError extends HeraldError {
  declare readonly code: ScheduleErrorCode;

  constructor(message: string, code: ScheduleErrorCode) {
    super(message, { code, kind: code === 'unparseable' || code === 'past' || code === 'bad_zone' ? 'invalid_input' : 'refused' });
  }
}
