export interface CheckResult {
  ok: boolean;
  detail?: string;
}

export type HealthCheck = () => Promise<CheckResult>;

export interface CheckOptions {
  /** A failing critical check makes the process not ready; a non-critical one is only reported. */
  critical: boolean;
}

export interface CheckReport extends CheckResult {
  name: string;
  critical: boolean;
  durationMs: number;
}

export interface ReadinessReport {
  ready: boolean;
  shuttingDown: boolean;
  checks: CheckReport[];
}

export interface LivenessReport {
  alive: true;
  shuttingDown: boolean;
  uptimeSeconds: number;
}

export interface HealthRegistryOptions {
  /** Read on every report; a process that is shutting down is never ready. */
  isShuttingDown?: () => boolean;
  /** A check that has not settled by then counts as failed. Default 3000 ms. */
  checkTimeoutMs?: number;
}

interface Registered {
  check: HealthCheck;
  critical: boolean;
}

/**
 * What a thrown check tells a prober: the error's code at most (`failed (ECONNREFUSED)`), never its message,
 * which can hold internal addresses.
 */
function failureDetail(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? `failed (${code})` : 'failed';
}

export class HealthRegistry {
  readonly #checks = new Map<string, Registered>();
  readonly #isShuttingDown: () => boolean;
  readonly #timeoutMs: number;
  readonly #startedAt = performance.now();
  // Concurrent probes share one evaluation so a busy prober cannot multiply the checks' cost.
  #running: Promise<CheckReport[]> | undefined;

  constructor(options: HealthRegistryOptions = {}) {
    this.#isShuttingDown = options.isShuttingDown ?? (() => false);
    this.#timeoutMs = options.checkTimeoutMs ?? 3000;
  }

  register(name: string, check: HealthCheck, options: CheckOptions): void {
    if (this.#checks.has(name)) throw new Error(`health check "${name}" is already registered`);
    this.#checks.set(name, { check, critical: options.critical });
  }

  /** Liveness runs no checks: the process answering at all is the signal, and draining is still alive. */
  liveness(): LivenessReport {
    return {
      alive: true,
      shuttingDown: this.#isShuttingDown(),
      uptimeSeconds: Math.round((performance.now() - this.#startedAt) / 1000),
    };
  }

  async readiness(): Promise<ReadinessReport> {
    this.#running ??= this.#runChecks().finally(() => {
      this.#running = undefined;
    });
    const checks = await this.#running;
    const shuttingDown = this.#isShuttingDown();
    const ready = !shuttingDown && checks.every((c) => c.ok || !c.critical);
    return { ready, shuttingDown, checks };
  }

  #runChecks(): Promise<CheckReport[]> {
    return Promise.all([...this.#checks].map(([name, { check, critical }]) => this.#runOne(name, check, critical)));
  }

  async #runOne(name: string, check: HealthCheck, critical: boolean): Promise<CheckReport> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${this.#timeoutMs} ms` }), this.#timeoutMs);
    });
    let result: CheckResult;
    try {
      result = await Promise.race([Promise.resolve().then(check), timeout]);
    } catch (error) {
      result = { ok: false, detail: failureDetail(error) };
    } finally {
      clearTimeout(timer);
    }
    const report: CheckReport = { name, critical, ok: result.ok === true, durationMs: Math.round(performance.now() - started) };
    if (result.detail !== undefined) report.detail = result.detail;
    return report;
  }
}
