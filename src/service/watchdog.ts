import type { TimeoutPhase } from './errors.ts';

/**
 * One timer per request for the first-byte and idle limits. `touch` only stores a timestamp (it runs
 * once per network chunk); the timer re-arms itself for the time left instead of being reset each time.
 */
export class Watchdog {
  private readonly onExpire: (phase: TimeoutPhase, limitMs: number) => void;
  private phase: TimeoutPhase = 'first_byte';
  private limitMs = 0;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(onExpire: (phase: TimeoutPhase, limitMs: number) => void) {
    this.onExpire = onExpire;
  }

  arm(phase: TimeoutPhase, limitMs: number): void {
    this.phase = phase;
    this.limitMs = limitMs;
    this.last = performance.now();
    clearTimeout(this.timer);
    this.timer = setTimeout(this.check, limitMs);
  }

  touch(): void {
    this.last = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly check = (): void => {
    const quiet = performance.now() - this.last;
    if (quiet >= this.limitMs) {
      this.timer = undefined;
      this.onExpire(this.phase, this.limitMs);
    } else {
      this.timer = setTimeout(this.check, this.limitMs - quiet);
    }
  };
}
