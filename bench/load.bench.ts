import { resultsTable } from './load/report.ts';
import { runScenario, type ScenarioOptions, type ScenarioResult } from './load/scenario.ts';

const WORDS = 200;
const TOKENS_PER_SECOND = 30;
const TIMEOUT_MS = 45_000;
const RAMP_MS = 5000;
// Herald's autogroup nice value: other engineers' work on this shared machine should not count as Herald's lag.
const PRIORITY = -10;

type Scenario = Pick<ScenarioOptions, 'discord' | 'slack' | 'store' | 'rampMs'>;

const SCENARIOS: Scenario[] = [
  { discord: 25, slack: 25, store: 'memory', rampMs: RAMP_MS },
  { discord: 100, slack: 100, store: 'memory', rampMs: RAMP_MS },
  { discord: 200, slack: 0, store: 'memory', rampMs: 0 },
  { discord: 200, slack: 0, store: 'sqlite', rampMs: 0 },
];

/**
 * N concurrent conversations through the Discord and Slack fakes, each answered with a streamed reply from the
 * emulator, against Herald run as in production (its own process, `herald` with no command); Herald's numbers
 * come from its /metrics.
 */
export async function run(): Promise<{ markdown: string }> {
  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    process.stderr.write(
      `load: ${scenario.discord} Discord + ${scenario.slack} Slack conversations over ${scenario.rampMs} ms on ${scenario.store} …\n`,
    );
    results.push(await runScenario({ ...scenario, words: WORDS, tokensPerSecond: TOKENS_PER_SECOND, timeoutMs: TIMEOUT_MS, priority: PRIORITY }));
  }
  const lines = [
    '## Load: concurrent streamed conversations',
    '',
    `Each conversation is one user asking \`long ${WORDS}\`: the emulator streams a ${WORDS}-word answer (about 360 tokens) at ` +
      `${TOKENS_PER_SECOND} tokens/s. The prompts go out all at once (the worst case) or evenly over ${RAMP_MS / 1000} s, after which ` +
      `every conversation streams at the same time. A reply is complete when the platform shows exactly the whole answer as Herald's ` +
      `message; it is lost when it is not complete ${TIMEOUT_MS / 1000} s after its prompt.`,
    '',
    'Herald runs as in production, in a process of its own (`node adapters/cli/herald.ts`, LOG_LEVEL=info as by default, memory or ' +
      'SQLite store, THINKING and WEB_SEARCH off, quotas raised); the emulator and the fakes run in the bench process. Every ' +
      "conversation has a user and a place of its own: on Discord, DMs and @mentions in a channel each (the fake keeps Discord's " +
      'limits: 50 requests/s global, 5 sends and 5 edits per 5 s per channel); on Slack, DMs and @mentions in a channel each, events ' +
      "signed and posted to Herald's /slack/events (the fake keeps Slack's published tiers per method and workspace; Herald's own " +
      'rate budget keeps under them, so that budget is what paces Slack replies).',
    '',
    resultsTable(results),
    '',
    "Event-loop lag is prom-client's `herald_nodejs_eventloop_lag_p99_seconds`, scraped every 2 s; its histogram resets on each " +
      'scrape, so each value is the p99 of one 2-second window, and the worst window is held against the goal. It includes the ' +
      '10 ms sampling interval (an idle process reads about 10 ms). RSS is the higher of `herald_process_resident_memory_bytes` ' +
      "at its peak and the kernel's VmHWM; CPU is the change of `herald_process_cpu_seconds_total`. Herald runs in a session of its " +
      `own at autogroup nice ${PRIORITY} so that other work on this shared machine weighs less against it; the time its main ` +
      "thread still waited for a CPU is shown (the kernel's schedstat), with the CPU other processes used meanwhile.",
  ];
  return { markdown: lines.join('\n') };
}
