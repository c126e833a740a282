import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/**
 * The machine's share in a run. Other engineers' work on the same 2 cores shows up in Herald's event-loop lag as
 * time its main thread waits for a CPU, so the report states both.
 */
export interface MachineSnapshot {
  at: number;
  /** CPU seconds all cores spent busy (user, nice, system, irq, softirq), and stolen by the hypervisor. */
  busySeconds: number;
  stealSeconds: number;
  /** Seconds Herald's main thread was runnable but waiting for a CPU (the kernel's schedstat run_delay). */
  heraldRunDelaySeconds: number;
  /** CPU seconds of this (bench) process. */
  benchCpuSeconds: number;
}

export interface MachineShare {
  cores: number;
  /** CPU seconds used by processes other than Herald and the bench. */
  othersCpuSeconds: number;
  stealSeconds: number;
  benchCpuSeconds: number;
  heraldRunDelaySeconds: number;
  seconds: number;
}

const TICKS_PER_SECOND = 100;

export function machineSnapshot(heraldPid: number): MachineSnapshot {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  const schedstat = readFileSync(`/proc/${heraldPid}/task/${heraldPid}/schedstat`, 'utf8').split(' ').map(Number);
  const cpu = process.cpuUsage();
  return {
    at: performance.now(),
    busySeconds: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
    stealSeconds: steal / TICKS_PER_SECOND,
    heraldRunDelaySeconds: (schedstat[1] ?? 0) / 1e9,
    benchCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

export function machineShare(from: MachineSnapshot, to: MachineSnapshot, heraldCpuSeconds: number): MachineShare {
  const benchCpuSeconds = to.benchCpuSeconds - from.benchCpuSeconds;
  return {
    cores: cpus().length,
    othersCpuSeconds: Math.max(0, to.busySeconds - from.busySeconds - heraldCpuSeconds - benchCpuSeconds),
    stealSeconds: to.stealSeconds - from.stealSeconds,
    benchCpuSeconds,
    heraldRunDelaySeconds: to.heraldRunDelaySeconds - from.heraldRunDelaySeconds,
    seconds: (to.at - from.at) / 1000,
  };
}
