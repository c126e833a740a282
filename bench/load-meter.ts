import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** What bench/discord-world.ts reports about its own thread. */
export interface ThreadLoad {
  cpu: NodeJS.CpuUsage;
}

/** Time tasks on this machine spent waiting for a CPU (Linux pressure stall information, µs); undefined elsewhere. */
function cpuStallUs(): number | undefined {
  try {
    const some = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return some ? Number(some[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time the hypervisor gave other machines while this one had work (Linux /proc/stat steal, ms); undefined elsewhere. */
function stealMs(): number | undefined {
  try {
    const steal = Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)[8]);
    return Number.isFinite(steal) ? steal * 10 : undefined; // USER_HZ ticks of 10 ms
  } catch {
    return undefined;
  }
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * Where a phase's time went besides Herald's own latency: CPU per reply of Herald's thread and of the world's,
 * how busy Herald's event loop was while replies ran, how long the machine's tasks waited for a CPU (other work
 * on a shared machine) and how much CPU a virtual machine's host took away (steal). Tells a slow tail from Herald
 * apart from one from the machine.
 */
export class LoadMeter {
  readonly #worldLoad: () => Promise<ThreadLoad>;
  #cpu = process.threadCpuUsage();
  #world: ThreadLoad | undefined;
  #stall: number | undefined;
  #steal: number | undefined;
  #busyMs = 0;
  #windowMs = 0;

  constructor(worldLoad: () => Promise<ThreadLoad>) {
    this.#worldLoad = worldLoad;
  }

  async start(): Promise<void> {
    this.#world = await this.#worldLoad();
    this.#stall = cpuStallUs();
    this.#steal = stealMs();
    this.#cpu = process.threadCpuUsage();
  }

  /** Runs one batch, counting how busy Herald's event loop was while it ran. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const before = performance.eventLoopUtilization();
    try {
      return await work();
    } finally {
      const { active, idle } = performance.eventLoopUtilization(before);
      this.#busyMs += active;
      this.#windowMs += active + idle;
    }
  }

  /** One sentence on the phase so far. */
  async report(replies: number): Promise<string> {
    const herald = cpuMs(process.threadCpuUsage(this.#cpu));
    const world = await this.#worldLoad();
    const worldMs = cpuMs(world.cpu) - cpuMs(this.#world!.cpu);
    const stallUs = cpuStallUs();
    const stall =
      stallUs !== undefined && this.#stall !== undefined
        ? `; tasks on the machine waited ${((stallUs - this.#stall) / 1e6).toFixed(1)} s for a CPU`
        : '';
    const stolen = stealMs();
    const steal =
      stolen !== undefined && this.#steal !== undefined
        ? `; the hypervisor took ${((stolen - this.#steal) / 1000).toFixed(1)} s of CPU from this machine`
        : '';
    return (
      `Herald's thread used ${(herald / replies).toFixed(1)} ms of CPU per reply and its event loop was busy ` +
      `${Math.round((100 * this.#busyMs) / this.#windowMs)}% of the time replies ran; the world's thread used ` +
      `${(worldMs / replies).toFixed(1)} ms per reply${stall}${steal}.`
    );
  }
}
