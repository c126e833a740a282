import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.ts';
import { CancelledError, describeError, HeraldError, MediaError, PackageLoadError } from '../src/errors.ts';
import { RateLimitError, ServerError } from '../src/service/errors.ts';
import { MessageGoneError } from '../src/streaming/surface.ts';
import { CalculatorError } from '../src/tools/calculator.ts';
import { VoiceError } from '../src/voice/voice-error.ts';
import { UsageError } from '../adapters/cli/cli-error.ts';

describe('describeError', () => {
  it('tells the user why for every error Herald raises on purpose, with its kind for metrics', () => {
    expect(describeError(new MediaError('"a.bmp" is damaged.', { code: 'corrupt' }))).toEqual({ kind: 'media', message: '"a.bmp" is damaged.' });
    expect(describeError(new VoiceError('Join a voice channel first.', { code: 'not_in_voice' })).kind).toBe('voice');
    expect(describeError(new ServerError('The service had a problem (502).')).kind).toBe('service');
    expect(describeError(new CancelledError()).kind).toBe('cancelled');
    expect(describeError(new ConfigError('PORT', 'not a number')).message).toBe('PORT: not a number');
  });

  it('passes on when to try again', () => {
    expect(describeError(new RateLimitError('Too many requests.', { retryAfterMs: 4000 }))).toEqual({
      kind: 'service',
      message: 'Too many requests.',
      retryAfterMs: 4000,
    });
  });

  it('never shows a user an unexpected error or an operator-only message', () => {
    const secret = new Error('connect ECONNREFUSED 10.1.2.3:6379');
    expect(describeError(secret)).toEqual({ kind: 'internal', message: 'Something went wrong while answering; please try again.' });
    expect(describeError('a string')).toEqual(describeError(secret));
    const missing = describeError(new PackageLoadError('@discordjs/opus', new Error('Cannot find module')));
    expect(missing.kind).toBe('internal');
    expect(missing.message).not.toContain('opus');
  });

  it('roots every error class in HeraldError', () => {
    const errors = [
      new MessageGoneError('m1'),
      new PackageLoadError('x', 'gone'),
      new UsageError('no such flag'),
      new CalculatorError('unexpected ")"', 3),
    ];
    for (const error of errors) expect(error).toBeInstanceOf(HeraldError);
    expect(errors.map((e) => e.name)).toEqual(['MessageGoneError', 'PackageLoadError', 'UsageError', 'CalculatorError']);
  });
});
