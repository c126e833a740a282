import { nativeOpus } from '../../src/media/opus-backend.ts';

export const hasNativeOpus = nativeOpus() !== undefined;

/** Appended to the name of a test that needs native libopus, so that a run without it says why the test skipped. */
export const nativeOpusNote = hasNativeOpus ? '' : ' (skipped: @discordjs/opus is not built here; CI compiles it)';
