import type { ScenarioResult } from './scenario.ts';

/** The goals for the full load; smaller runs are shown beside it for comparison. */
export const GOALS = { lagP99Ms: 50, lost: 0, rssBytes: 300 * 2 ** 20 } as const;

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const verdict = (ok: boolean) => (ok ? '✅' : '❌');

function percentile(sorted: number[], p: number): number | undefined {
  return sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function title(r: ScenarioResult): string {
  const arrival = r.options.rampMs === 0 ? 'all at once' : `over ${r.options.rampMs / 1000} s`;
  return `N=${r.conversations} ${arrival}, ${r.options.store}`;
}

const share = (seconds: number, of: number) => `${seconds.toFixed(1)} s (${((seconds * 100) / of).toFixed(0)} %)`;

function platform429s(r: ScenarioResult): string {
  const entries = Object.entries(r.fake429s);
  if (entries.length === 0) return '0';
  return entries.map(([route, n]) => `${n} ${route}`).join(', ');
}

interface Row {
  name: string;
  goal: string;
  cell(r: ScenarioResult): string;
}

const rows: Row[] = [
  { name: 'conversations (Discord + Slack)', goal: '', cell: (r) => `${r.conversations} (${r.options.discord} + ${r.options.slack})` },
  { name: 'duration (prompts sent → last reply complete)', goal: '', cell: (r) => `${(r.durationMs / 1000).toFixed(1)} s` },
  {
    name: 'reply complete after, p50 / p95 / max',
    goal: '',
    cell: (r) => [50, 95, 100].map((p) => percentile(r.replySeconds, p)?.toFixed(1) ?? '–').join(' / ') + ' s',
  },
  {
    name: 'replies complete / lost (complete on Discord + Slack)',
    goal: `${GOALS.lost} lost`,
    cell: (r) => {
      const lost = r.conversations - r.complete;
      const undelivered = r.undelivered > 0 ? `, ${r.undelivered} prompts not delivered` : '';
      return `${r.complete} / ${lost} (${r.completeBy.discord} + ${r.completeBy.slack}${undelivered}) ${verdict(lost <= GOALS.lost)}`;
    },
  },
  {
    name: 'event-loop lag p99, worst scrape window',
    goal: `< ${GOALS.lagP99Ms} ms`,
    cell: (r) => `${r.herald.lagP99Ms.toFixed(0)} ms ${verdict(r.herald.lagP99Ms < GOALS.lagP99Ms)}`,
  },
  { name: 'event-loop lag p99, median window / worst single delay', goal: '', cell: (r) => `${r.herald.lagP99MedianMs.toFixed(0)} ms / ${r.herald.lagMaxMs.toFixed(0)} ms` },
  {
    name: 'peak RSS (idle before the load)',
    goal: `< ${MiB(GOALS.rssBytes)}`,
    cell: (r) => {
      const peak = Math.max(r.herald.peakRssBytes, r.herald.rssHighWaterBytes ?? 0);
      return `${MiB(peak)} (${MiB(r.herald.idleRssBytes)}) ${verdict(peak < GOALS.rssBytes)}`;
    },
  },
  {
    name: 'CPU (share of one core over the duration)',
    goal: '',
    cell: (r) => `${r.herald.cpuSeconds.toFixed(1)} s (${((r.herald.cpuSeconds * 100_000) / r.durationMs).toFixed(0)} %)`,
  },
  { name: "429s (Herald's herald_platform_rate_limited_total)", goal: 'counted', cell: (r) => String(r.herald.platform429s) },
  { name: '429s served by the fakes', goal: 'counted', cell: platform429s },
  { name: 'Herald warnings logged', goal: '', cell: (r) => String(r.warnings) },
  {
    name: "Herald's main thread waiting for a CPU (share of the run)",
    goal: '',
    cell: (r) => share(r.machine.heraldRunDelaySeconds, r.machine.seconds),
  },
  {
    name: 'other processes on the machine: CPU (share of all cores), steal',
    goal: '',
    cell: (r) => `${share(r.machine.othersCpuSeconds, r.machine.seconds * r.machine.cores)}, ${r.machine.stealSeconds.toFixed(1)} s`,
  },
  {
    name: 'load generator (bench process): CPU, event-loop p99',
    goal: '',
    cell: (r) => `${r.machine.benchCpuSeconds.toFixed(1)} s, ${r.benchLagP99Ms.toFixed(0)} ms`,
  },
];

export function resultsTable(results: ScenarioResult[]): string {
  return [
    `| | goal | ${results.map(title).join(' | ')} |`,
    `|---|---|${results.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.name} | ${row.goal} | ${results.map((r) => row.cell(r)).join(' | ')} |`),
  ].join('\n');
}
