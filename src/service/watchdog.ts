import type { TimeoutPhase } from './errors.ts';

/**
 * One timer per request for the first-byte and idle limits. Only time spent waiting for the service
 * counts: `wait()` starts the clock before each read and `hold()` stops it while the caller is busy
 * with what arrived (a slow consumer is not a silent service). Both only store a timestamp and a
 * flag; the timer re-arms itself for the time left instead of being reset on every chunk.
 */
export class Watchdog {
  readonly #onExpire: (phase: TimeoutPhase, limitMs: number) => void;
  #phase: TimeoutPhase = 'first_byte';
  #limitMs = 0;
  #since = 0;
  #waiting = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(onExpire: (phase: TimeoutPhase, limitMs: number) => void) {
    this.#onExpire = onExpire;
  }

  arm(phase: TimeoutPhase, limitMs: number): void {
    this.#phase = phase;
    this.#limitMs = limitMs;
    this.wait();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(this.#check, limitMs);
  }

  wait(): void {
    this.#since = performance.now();
    this.#waiting = true;
  }

  hold(): void {
    this.#waiting = false;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #check = (): void => {
    const quiet = this.#waiting ? performance.now() - this.#since : 0;
    if (quiet >= this.#limitMs) {
      this.#timer = undefined;
      this.#onExpire(this.#phase, this.#limitMs);
    } else {
      this.#timer = setTimeout(this.#check, this.#limitMs - quiet);
    }
  };
}
