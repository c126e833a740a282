import type { AnsweredQuestion, AnswerVersion } from './answered-questions.ts';
import type { AnswerControls } from './platform.ts';

/** Versions kept per answer: a Regenerate past this drops the oldest. */
export const MAX_VERSIONS = 10;

/** The controls a written answer shows: Regenerate, Continue on a cut newest version, ◀ n/m ▶ once there are several. */
export function finishedControls(versions: readonly AnswerVersion[], shown: number): AnswerControls {
  const newest = shown === versions.length - 1;
  return {
    regenerate: true,
    ...(newest && versions[shown]?.cut && { continue: true }),
    ...(versions.length > 1 && { version: { shown: shown + 1, count: versions.length } }),
  };
}

/** The controls an answer shows now: none while it is written (or when it was not). */
export function controlsOf(answered: AnsweredQuestion): AnswerControls {
  const { versions, shown } = answered;
  return versions?.length ? finishedControls(versions, shown ?? versions.length - 1) : {};
}
