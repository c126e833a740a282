import { readFile } from 'node:fs/promises';
import { parsePromText, total, type Scrape } from './prom-text.ts';

/** What Herald's /metrics said over a run; lag and RSS are the worst scrape, CPU and 429s the change. */
export interface Sampled {
  /** Worst p99 of the event-loop delay over one scrape interval (prom-client resets its histogram per scrape). */
  lagP99Ms: number;
  /** Median over the scrapes of that per-interval p99, for the typical picture beside the worst. */
  lagP99MedianMs: number;
  lagMaxMs: number;
  peakRssBytes: number;
  /** RSS before the load started. */
  idleRssBytes: number;
  /** The kernel's high-water mark of the process's RSS (VmHWM), which sees peaks between scrapes. */
  rssHighWaterBytes: number | undefined;
  cpuSeconds: number;
  platform429s: number;
  inflightPeak: number;
  /** The event-loop p99 of every window, in order (ms, rounded). */
  lagP99Series: number[];
}

const ms = (seconds: number) => seconds * 1000;

/** Scrapes Herald's /metrics every `intervalMs` from start() until stop(). */
export class MetricsSampler {
  readonly #url: string;
  readonly #pid: number;
  readonly #intervalMs: number;
  readonly #lagP99: number[] = [];
  #lagMax = 0;
  #peakRss = 0;
  #inflightPeak = 0;
  #first: Scrape | undefined;
  #last: Scrape | undefined;
  #timer: NodeJS.Timeout | undefined;
  #pending: Promise<void> = Promise.resolve();

  constructor(opsUrl: string, pid: number, intervalMs: number) {
    this.#url = `${opsUrl}/metrics`;
    this.#pid = pid;
    this.#intervalMs = intervalMs;
  }

  /** Takes a baseline scrape (which also resets the lag histogram) and starts sampling. */
  async start(): Promise<void> {
    this.#first = await this.#scrape();
    this.#timer = setInterval(() => {
      this.#pending = this.#pending.then(() => this.#record());
    }, this.#intervalMs);
  }

  async stop(): Promise<Sampled> {
    clearInterval(this.#timer);
    await this.#pending;
    await this.#record();
    const first = this.#first!;
    const last = this.#last!;
    const sorted = [...this.#lagP99].sort((a, b) => a - b);
    return {
      lagP99Ms: sorted.at(-1) ?? 0,
      lagP99MedianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      lagMaxMs: this.#lagMax,
      peakRssBytes: this.#peakRss,
      idleRssBytes: total(first, 'herald_process_resident_memory_bytes'),
      rssHighWaterBytes: await this.#highWater(),
      cpuSeconds: total(last, 'herald_process_cpu_seconds_total') - total(first, 'herald_process_cpu_seconds_total'),
      platform429s: total(last, 'herald_platform_rate_limited_total') - total(first, 'herald_platform_rate_limited_total'),
      inflightPeak: this.#inflightPeak,
      lagP99Series: this.#lagP99.map(Math.round),
    };
  }

  async #record(): Promise<void> {
    const scrape = await this.#scrape();
    this.#last = scrape;
    const lagP99Ms = ms(total(scrape, 'herald_nodejs_eventloop_lag_p99_seconds'));
    const lagMaxMs = ms(total(scrape, 'herald_nodejs_eventloop_lag_max_seconds'));
    const rss = total(scrape, 'herald_process_resident_memory_bytes');
    // A window too short for one sample of the 10 ms histogram has no percentiles (its min reads above its max).
    const empty = ms(total(scrape, 'herald_nodejs_eventloop_lag_min_seconds')) > lagMaxMs;
    if (!empty) this.#lagP99.push(lagP99Ms);
    this.#lagMax = Math.max(this.#lagMax, lagMaxMs);
    this.#peakRss = Math.max(this.#peakRss, rss);
    this.#inflightPeak = Math.max(this.#inflightPeak, total(scrape, 'herald_inflight_replies'));
  }

  async #scrape(): Promise<Scrape> {
    const response = await fetch(this.#url);
    if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
    return parsePromText(await response.text());
  }

  async #highWater(): Promise<number | undefined> {
    try {
      const status = await readFile(`/proc/${this.#pid}/status`, 'utf8');
      const kb = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
      return kb === undefined ? undefined : Number(kb) * 1024;
    } catch {
      return undefined;
    }
  }
}
