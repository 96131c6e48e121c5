// CPU time spent by this process, the machine and named processes (each with its children: PostgreSQL's
// backends are children of its postmaster) between two moments, from /proc. Where there is no /proc a
// figure is undefined rather than zero.
import { machineCpuMs, processTreeCpuMs } from './concurrent-streams-children.ts';

export type CpuSnapshot = Record<string, number | undefined>;

/** `bench` is this process (the client, and whatever else the benchmark runs in it), `machine` all cores. */
export function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const usage = process.cpuUsage();
  const snapshot: CpuSnapshot = { machine: machineCpuMs(), bench: (usage.user + usage.system) / 1000 };
  for (const [name, pid] of Object.entries(pids)) snapshot[name] = pid === undefined ? undefined : processTreeCpuMs(pid);
  return snapshot;
}

/** Milliseconds of CPU each part spent from `before` to `after`, divided by `per` (1: the total). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot, per = 1): CpuSnapshot {
  const spent: CpuSnapshot = {};
  for (const [name, end] of Object.entries(after)) {
    const start = before[name];
    spent[name] = end === undefined || start === undefined ? undefined : (end - start) / per;
  }
  return spent;
}
