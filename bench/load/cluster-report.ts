import type { ClusterResult, InstanceSpec } from './cluster.ts';
import { markdownTable, verdict, type Row } from './report.ts';

const role = (spec: InstanceSpec) =>
  [spec.slack && 'Slack', spec.shards.length > 0 && `Discord shard ${spec.shards.join('+')}`].filter(Boolean).join(' + ');

const title = (r: ClusterResult) =>
  `${r.options.instances.length} instance${r.options.instances.length === 1 ? '' : 's'}${r.options.killSlack || r.options.shardOutage ? ', with kills' : ''}`;

const zero = (n: number) => `${n} ${verdict(n === 0)}`;

const counts = (byKey: Record<string, number>) =>
  Object.entries(byKey)
    .map(([key, n]) => `${n} ${key}`)
    .join(', ') || '0';

const perInstance = (r: ClusterResult, cell: (i: ClusterResult['instances'][number]) => string) =>
  r.instances.map((i) => `${i.name}: ${cell(i)}${i.killed ? ' (until killed)' : ''}`).join('; ');

const rows: Array<Row<ClusterResult>> = [
  { name: 'instances', goal: '', cell: (r) => r.options.instances.map((spec) => `${spec.name} = ${role(spec)}`).join('; ') },
  {
    name: 'conversations: Discord + Slack (two turns each)',
    goal: '',
    cell: (r) => `${r.options.discord} + ${r.options.slack}`,
  },
  { name: 'duration (first prompt → last reply complete or given up)', goal: '', cell: (r) => `${(r.durationMs / 1000).toFixed(1)} s` },
  {
    name: 'conversations lost (not complete in time): Discord + Slack',
    goal: '0',
    cell: (r) =>
      `${r.lost.discord} + ${r.lost.slack} ${verdict(r.lost.discord + r.lost.slack === 0)}` +
      (r.undelivered > 0 ? ` (${r.undelivered} with a prompt never taken or never asked)` : ''),
  },
  { name: 'duplicate replies (more than one per event)', goal: '0', cell: (r) => zero(r.duplicates) },
  { name: 'Slack replies left streaming', goal: '0', cell: (r) => zero(r.stuck) },
  { name: '429s served by the fakes', goal: '0', cell: (r) => `${counts(r.fake429s)} ${verdict(Object.keys(r.fake429s).length === 0)}` },
  {
    name: 'Slack: second answers that recall the first turn; turns taken by different instances',
    goal: 'all',
    cell: (r) => `${r.remembered} / ${r.dialogues} ${verdict(r.remembered === r.dialogues)}; ${r.acrossInstances}`,
  },
  { name: "Slack's retries of event deliveries, by reason", goal: '', cell: (r) => counts(r.retries) },
  {
    name: 'event-loop lag p99, worst 2 s window, per instance',
    goal: '',
    cell: (r) => perInstance(r, (i) => `${i.herald.lagP99Ms.toFixed(0)} ms`),
  },
  { name: 'CPU seconds per instance', goal: '', cell: (r) => perInstance(r, (i) => `${i.herald.cpuSeconds.toFixed(1)} s`) },
  { name: 'warnings and errors logged per instance', goal: '', cell: (r) => perInstance(r, (i) => String(i.warnings)) },
  {
    name: 'Redis commands per reply (INFO commandstats ÷ replies)',
    goal: '',
    cell: (r) => `${(r.redisCommands / Math.max(1, r.replies)).toFixed(0)} (${r.redisCommands} / ${r.replies})`,
  },
  {
    name: 'Slack kill: replies the killed instance had taken, unfinished → finished by another; seconds after the kill (p50 / max)',
    goal: 'all',
    cell: (r) => {
      const kill = r.slackKill;
      if (!kill) return '–';
      const p50 = kill.finishSeconds[Math.floor(kill.finishSeconds.length / 2)];
      const times = kill.finished > 0 ? `; ${p50!.toFixed(1)} / ${kill.finishSeconds.at(-1)!.toFixed(1)} s` : '';
      return `${kill.inProgress} → ${kill.finished} ${verdict(kill.finished === kill.inProgress)}${times}`;
    },
  },
  {
    name: 'Discord kill of shard 1: gap until a replacement identified (its start took)',
    goal: '',
    cell: (r) => {
      const outage = r.shardOutage;
      if (!outage) return '–';
      return `${outage.gapMs === undefined ? 'never' : `${(outage.gapMs / 1000).toFixed(1)} s`} (${(outage.restartMs / 1000).toFixed(1)} s)`;
    },
  },
  {
    name: 'Discord kill: questions lost / asked on shard 1, before the kill · in the gap · after',
    goal: '',
    cell: (r) => {
      const probes = r.shardOutage?.probes;
      if (!probes) return '–';
      return [probes.before, probes.gap, probes.after].map((w) => `${w.lost} / ${w.sent}`).join(' · ');
    },
  },
];

export function clusterTable(results: ClusterResult[]): string {
  return markdownTable(rows, results, title);
}
