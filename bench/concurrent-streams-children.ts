// Child processes for bench/concurrent-streams.bench.ts: the API, the worker and the baseline relay
// each run as a process of their own, as in production, so that 200 streams do not share one event
// loop with the benchmark's readers. A child's output goes to a file in the bench's scratch
// directory (a pipe the busy bench process drains late could block a child that logs synchronously);
// its tail is quoted when the child fails. Children lead process groups of their own, so stop()
// can end whatever they started, and they preload dev/exit-with-launcher.cjs, so a bench killed
// outright does not leave them running.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchChild {
  name: string;
  pid: number;
  /** What the child sent with its `ready` message. */
  ready: Promise<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL to its process group after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** The last lines of a child's log, for an error message. */
function logTail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Forks `file` (a TypeScript file, relative to the repository) through tsx with `env` as its whole
 * environment. It is ready when it sends `{ type: 'ready', ... }` over IPC, as api/server.ts and
 * workers/main.ts do when they have a channel.
 */
export function forkBenchChild(options: {
  name: string;
  file: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  /** Flags for node itself, before the preload. */
  nodeFlags?: readonly string[];
  logDir: string;
  readyTimeoutMs: number;
}): BenchChild {
  const logFile = path.join(options.logDir, `concurrent-streams-${options.name}.log`);
  const log = fs.openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = fork(path.join(ROOT, options.file), options.args ?? [], {
      cwd: ROOT,
      env: options.env,
      execArgv: [...(options.nodeFlags ?? []), '--require', path.join(ROOT, 'dev/exit-with-launcher.cjs'), '--import', 'tsx'],
      stdio: ['ignore', log, log, 'ipc'],
      detached: true,
    });
  } finally {
    // The child has its own copy of the descriptor.
    fs.closeSync(log);
  }
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`${options.name} was not ready within ${options.readyTimeoutMs / 1000} s; its log ends:\n${logTail(logFile)}`)),
      options.readyTimeoutMs,
    );
    child.on('message', (message: { type?: string }) => {
      if (message?.type !== 'ready') return;
      clearTimeout(timer);
      const { type: _type, ...info } = message;
      resolve(info);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited (code ${child.exitCode}) before it was ready; its log ends:\n${logTail(logFile)}`));
    });
  });
  // A child stopped before it was ready rejects `ready` with nobody awaiting it.
  ready.catch(() => undefined);

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  let stopping: Promise<void> | undefined;
  return {
    name: options.name,
    pid: child.pid ?? -1,
    ready,
    stop(graceMs = 15_000) {
      stopping ??= (async () => {
        if (hasExited(child)) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** A process's parent and its CPU time so far (user + system, ms), from /proc/<pid>/stat; undefined when gone. */
function processStat(pid: number | string): { ppid: number; cpuMs: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // ppid is field 4 of the line, utime and stime 14 and 15: 2, 12 and 13 after the name.
    return { ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat
 * (whose clock ticks are USER_HZ, 100 per second, on Linux); undefined where there is no /proc.
 */
export function processCpuMs(pid: number): number | undefined {
  return processStat(pid)?.cpuMs;
}

/**
 * CPU time of a process and its children so far, in milliseconds (PostgreSQL's backends are children of
 * its postmaster); undefined when the process is gone or there is no /proc.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const own = processCpuMs(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = processStat(entry);
    if (child?.ppid === pid) total += child.cpuMs;
  }
  return total;
}

/** CPU time all cores of this machine have spent busy so far, in milliseconds, from /proc/stat; undefined where there is none. */
export function machineCpuMs(): number | undefined {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
  } catch {
    return undefined;
  }
}

/** Lines at warn level or above (pino's 40) in a child's log so far, and the message of the first. */
export function logWarnings(logDir: string, name: string): { count: number; first?: string } {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(logDir, `concurrent-streams-${name}.log`), 'utf8').split('\n');
  } catch {
    return { count: 0 };
  }
  const warnings = lines.filter((line) => {
    try {
      return (JSON.parse(line) as { level?: number }).level! >= 40;
    } catch {
      // Not a log line (a start-up message on stderr, say): only an error text would matter, and it fails the start.
      return false;
    }
  });
  if (!warnings.length) return { count: 0 };
  const first = JSON.parse(warnings[0]!) as { msg?: string; err?: { message?: string } };
  return { count: warnings.length, first: `${first.msg ?? ''}${first.err?.message ? `: ${first.err.message}` : ''}`.slice(0, 300) };
}
