import { HeraldError } from '../errors.ts';

export type VoiceErrorCode =
  | 'not_in_guild'
  | 'not_in_voice'
  | 'unsupported_channel'
  | 'missing_connect'
  | 'missing_speak'
  | 'channel_full'
  | 'connect_failed'
  | 'busy_elsewhere'
  | 'queue_full'
  | 'unknown_channel'
  | 'not_permitted'
  | 'listening_off'
  | 'cannot_listen'
  | 'already_listening';

/** Voice could not be used for this request; `message` tells the user why and what to do. */
export class VoiceError extends HeraldError {
  declare readonly code: VoiceErrorCode;

  constructor(message: string, options: { code: VoiceErrorCode; cause?: unknown }) {
    super(message, { ...options, kind: 'voice' });
  }
}
