import { ranHere, type ScheduleRun } from '../schedules/scheduler.ts';
import type { Metrics } from './metrics.ts';

/**
 * Counts the schedule runs this instance did, by how they ended (ok, failed, skipped, interrupted) or why they did
 * not end (deferred by a limit, lost to a shutdown); occurrences found held elsewhere or already done are not runs.
 */
export function scheduleMetricsRecorder(metrics: Metrics): (run: ScheduleRun) => void {
  return (run) => {
    if (ranHere(run)) metrics.scheduleRuns.inc({ platform: run.platform, kind: run.kind, outcome: run.outcome ?? run.result });
  };
}
