import { resultsTable } from './load/report.ts';
import { runScenario, type ScenarioOptions, type ScenarioResult } from './load/scenario.ts';

const WORDS = 200;
const TOKENS_PER_SECOND = 30;
const TIMEOUT_MS = 60_000;

const RAMP_MS = 5000;
// Herald's autogroup nice value: other engineers' work on this shared machine should not count as Herald's lag.
const PRIORITY = -10;
const SCENARIOS: Array<Pick<ScenarioOptions, 'discord' | 'slack' | 'store' | 'rampMs'>> = [
  { discord: 50, slack: 0, store: 'memory', rampMs: 0 },
  { discord: 200, slack: 0, store: 'memory', rampMs: 0 },
  { discord: 200, slack: 0, store: 'memory', rampMs: RAMP_MS },
  { discord: 200, slack: 0, store: 'sqlite', rampMs: RAMP_MS },
];

/**
 * N concurrent conversations through the Discord fake, each answered with a streamed reply from the emulator,
 * against Herald run as in production (its own process, `herald` with no command); Herald's numbers come from
 * its /metrics.
 */
export async function run(): Promise<{ markdown: string }> {
  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    process.stderr.write(`load: ${scenario.discord} conversations over ${scenario.rampMs} ms on ${scenario.store} …\n`);
    results.push(await runScenario({ ...scenario, words: WORDS, tokensPerSecond: TOKENS_PER_SECOND, timeoutMs: TIMEOUT_MS, priority: PRIORITY }));
  }
  const lines = [
    '## Load: concurrent streamed conversations',
    '',
    `Each conversation is a user's prompt \`long ${WORDS}\` (a ${WORDS}-word answer, about 360 tokens) streamed by the emulator ` +
      `at ${TOKENS_PER_SECOND} tokens/s; the prompts are sent all at once (the worst case) or evenly over ${RAMP_MS / 1000} s, after which all ` +
      'conversations stream at the same time. Herald runs as in production in a child process ' +
      '(`node adapters/cli/herald.ts`, LOG_LEVEL=info as by default, THINKING and WEB_SEARCH off, quotas raised); the emulator and the fakes run in the ' +
      "bench process. On Discord, even conversations are DMs and odd ones @mentions in a channel of their own, so each reply has its own per-channel " +
      "rate-limit buckets; the fake keeps Discord's limits (50 requests/s global, 5 message edits per 5 s per channel). A reply counts as complete " +
      'when the platform shows exactly the full answer as Herald\'s message; lost = N − complete after a ' +
      `${TIMEOUT_MS / 1000} s timeout.`,
    '',
    resultsTable(results),
    '',
    "Event-loop lag is prom-client's `herald_nodejs_eventloop_lag_p99_seconds`, scraped every 2 s; the histogram resets on each scrape, " +
      'so each value is the p99 of one 2-second window and the worst window is reported (it includes the 10 ms sampling interval: an idle ' +
      "process reads about 10 ms). RSS is the highest of `herald_process_resident_memory_bytes` and the kernel's VmHWM; CPU is the change of " +
      '`herald_process_cpu_seconds_total` over the run.',
  ];
  return { markdown: lines.join('\n') };
}
