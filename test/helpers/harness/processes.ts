// The process tree as Linux's /proc shows it, for tests of what the launcher leaves running.
import fs from 'node:fs';

export interface ProcessInfo {
  pid: number;
  /** Clock ticks since boot: with the pid, names one process even if the pid is reused. */
  startTime: string;
  command: string;
}

interface Stat {
  state: string;
  ppid: number;
  startTime: string;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name, in parentheses, may itself hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** The state letter of a process (`Z`: exited, not yet reaped), or undefined when it is gone. */
export function processState(pid: number): string | undefined {
  return readStat(pid)?.state;
}

/** Every live descendant of `pid`. */
export function descendantsOf(pid: number): ProcessInfo[] {
  const byParent = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat || stat.state === 'Z') continue;
    byParent.set(stat.ppid, [...(byParent.get(stat.ppid) ?? []), Number(entry)]);
  }
  const found: ProcessInfo[] = [];
  const visit = (parent: number) => {
    for (const child of byParent.get(parent) ?? []) {
      const stat = readStat(child);
      if (stat) found.push({ pid: child, startTime: stat.startTime, command: commandOf(child) });
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** Still running: the same process (not a reused pid), and not a zombie. */
export function isRunning(info: ProcessInfo): boolean {
  const stat = readStat(info.pid);
  return stat !== undefined && stat.startTime === info.startTime && stat.state !== 'Z';
}
