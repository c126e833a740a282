import type { Platform, ScenarioResult } from './scenario.ts';

/** The issue's goals for the full load; smaller runs are shown beside it for comparison. */
export const GOALS = { lagP99Ms: 50, lost: 0, rssBytes: 300 * 2 ** 20 } as const;

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
export const verdict = (ok: boolean) => (ok ? '✅' : '❌');
const share = (seconds: number, of: number) => `${seconds.toFixed(1)} s (${((seconds * 100) / of).toFixed(0)} %)`;

function percentile(sorted: number[], p: number): number | undefined {
  return sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function title(r: ScenarioResult): string {
  const arrival = r.options.rampMs === 0 ? 'all at once' : `over ${r.options.rampMs / 1000} s`;
  return `N=${r.conversations}, ${arrival}, ${r.options.store}`;
}

function platformReplies(r: ScenarioResult, platform: Platform): string {
  const asked = r.options[platform];
  if (asked === 0) return '–';
  const done = r.replySeconds[platform];
  const times = [50, 95, 100].map((p) => percentile(done, p)?.toFixed(1) ?? '–').join(' / ');
  return `${done.length} / ${asked - done.length}; ${times} s`;
}

/** A line of a results table: what it shows, the goal, and its cell for one run. */
export interface Row<R> {
  name: string;
  goal: string;
  cell(r: R): string;
}

const rows: Array<Row<ScenarioResult>> = [
  { name: 'conversations: Discord + Slack', goal: '', cell: (r) => `${r.options.discord} + ${r.options.slack}` },
  { name: 'replies in progress at once, most seen (herald_inflight_replies)', goal: '', cell: (r) => String(r.herald.inflightPeak) },
  { name: 'duration (first prompt → last reply complete or given up)', goal: '', cell: (r) => `${(r.durationMs / 1000).toFixed(1)} s` },
  { name: 'Discord: complete / lost; complete after p50 / p95 / max', goal: '', cell: (r) => platformReplies(r, 'discord') },
  { name: 'Slack: complete / lost; complete after p50 / p95 / max', goal: '', cell: (r) => platformReplies(r, 'slack') },
  {
    name: 'replies lost',
    goal: String(GOALS.lost),
    cell: (r) => {
      const lost = r.conversations - r.complete;
      return `${lost}${r.undelivered > 0 ? ` (${r.undelivered} prompts not delivered)` : ''} ${verdict(lost <= GOALS.lost)}`;
    },
  },
  {
    name: 'event-loop lag p99, worst 2 s window',
    goal: `< ${GOALS.lagP99Ms} ms`,
    cell: (r) => `${r.herald.lagP99Ms.toFixed(0)} ms ${verdict(r.herald.lagP99Ms < GOALS.lagP99Ms)}`,
  },
  {
    name: 'event-loop lag p99 of the median window; longest single delay',
    goal: '',
    cell: (r) => `${r.herald.lagP99MedianMs.toFixed(0)} ms; ${r.herald.lagMaxMs.toFixed(0)} ms`,
  },
  { name: 'event-loop lag p99 of each 2 s window (ms)', goal: '', cell: (r) => r.herald.lagP99Series.join(' ') },
  {
    name: 'peak RSS (idle before the load)',
    goal: `< ${MiB(GOALS.rssBytes)}`,
    cell: (r) => {
      const peak = Math.max(r.herald.peakRssBytes, r.herald.rssHighWaterBytes ?? 0);
      return `${MiB(peak)} (${MiB(r.herald.idleRssBytes)}) ${verdict(peak < GOALS.rssBytes)}`;
    },
  },
  { name: 'CPU (share of one core over the duration)', goal: '', cell: (r) => share(r.herald.cpuSeconds, r.durationMs / 1000) },
  { name: '429s counted by Herald (herald_platform_rate_limited_total)', goal: '', cell: (r) => String(r.herald.platform429s) },
  {
    name: '429s served by the fakes',
    goal: '',
    cell: (r) =>
      Object.entries(r.fake429s)
        .map(([route, n]) => `${n} ${route}`)
        .join(', ') || '0',
  },
  { name: 'warnings and errors Herald logged', goal: '', cell: (r) => String(r.warnings) },
  {
    name: "Herald's main thread waiting for a CPU (share of the run)",
    goal: '',
    cell: (r) => `${share(r.machine.heraldRunDelaySeconds, r.machine.seconds)}${r.priority === undefined ? ', priority not raised' : ''}`,
  },
  {
    name: 'other processes on the machine: CPU (share of all cores)',
    goal: '',
    cell: (r) => share(r.machine.othersCpuSeconds, r.machine.seconds * r.machine.cores),
  },
  {
    name: 'load generator (bench process): CPU; event-loop p99',
    goal: '',
    cell: (r) => `${r.machine.benchCpuSeconds.toFixed(1)} s; ${r.benchLagP99Ms.toFixed(0)} ms`,
  },
];

export function resultsTable(results: ScenarioResult[]): string {
  return markdownTable(rows, results, title);
}

/** A markdown table with a column per run and a line per row. */
export function markdownTable<R>(rows: Array<Row<R>>, results: R[], title: (r: R) => string): string {
  return [
    `| | goal | ${results.map(title).join(' | ')} |`,
    `|---|---|${results.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.name} | ${row.goal} | ${results.map((r) => row.cell(r)).join(' | ')} |`),
  ].join('\n');
}
