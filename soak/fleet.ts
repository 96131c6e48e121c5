// The service's processes, as production runs them: API processes (each on a port of its own, behind
// the balancer) and workers (on one task queue), each a `node --import tsx` child from source with its
// output in a log file. A member can be SIGKILLed and started again in its place (same port, same log),
// and the fleet says how long each start took until the process was ready (serving, or polling).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../dev/ports.ts';
import { WORKER_NODE_FLAGS } from '../workers/node-flags.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** A process not ready by then fails the soak: its log says why. */
const READY_TIMEOUT_MS = 120_000;

export type Role = 'api' | 'worker';

export interface Member {
  name: string;
  role: Role;
  /** The API's port (fixed across restarts, so the balancer finds it again). */
  port?: number;
  process?: ChildProcess;
  /** Resolves once the current process is ready. */
  ready?: Promise<void>;
}

export interface Fleet {
  members: readonly Member[];
  /** Ports of the APIs whose current process is ready. */
  apiPorts(): number[];
  /** SIGKILL, then a new process in its place; answers the new one's time to ready. */
  killAndRestart(member: Member): Promise<{ restartMs: number }>;
  stop(): Promise<void>;
}

function startMember(member: Member, env: NodeJS.ProcessEnv, logDir: string): Promise<void> {
  const file = member.role === 'api' ? 'api/server.ts' : 'workers/main.ts';
  const log = fs.openSync(path.join(logDir, `${member.name}.log`), 'a');
  const child = fork(path.join(ROOT, file), [], {
    cwd: ROOT,
    env: { ...env, ...(member.port ? { PORT: String(member.port), HOST: '127.0.0.1' } : {}) },
    execArgv: [...(member.role === 'worker' ? WORKER_NODE_FLAGS : []), '--import', 'tsx'],
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  member.process = child;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${member.name} was not ready in ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    child.on('message', (message: { type?: string }) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${member.name} exited (${signal ?? code}) before it was ready; see ${logDir}/${member.name}.log`));
    });
  });
  // A kill after ready is expected; only a failure to start is the caller's concern.
  ready.catch(() => undefined);
  member.ready = ready;
  return ready;
}

function exited(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startFleet(options: { apis: number; workers: number; env: NodeJS.ProcessEnv; logDir: string }): Promise<Fleet> {
  const members: Member[] = [];
  for (let i = 1; i <= options.apis; i++) members.push({ name: `api-${i}`, role: 'api', port: await freePort() });
  for (let i = 1; i <= options.workers; i++) members.push({ name: `worker-${i}`, role: 'worker' });
  const readyPorts = new Set<number>();
  const start = async (member: Member) => {
    await startMember(member, options.env, options.logDir);
    if (member.port) readyPorts.add(member.port);
  };
  // The first API migrates the database; the rest start once it has.
  const [first, ...rest] = members;
  await start(first!);
  await Promise.all(rest.map(start));

  return {
    members,
    apiPorts: () => [...readyPorts],
    async killAndRestart(member) {
      if (member.port) readyPorts.delete(member.port);
      member.process?.kill('SIGKILL');
      await exited(member.process);
      const began = performance.now();
      await start(member);
      return { restartMs: Math.round(performance.now() - began) };
    },
    async stop() {
      await Promise.all(
        members.map(async (member) => {
          member.process?.kill('SIGTERM');
          const done = exited(member.process);
          const late = setTimeout(() => member.process?.kill('SIGKILL'), 15_000);
          await done;
          clearTimeout(late);
        }),
      );
    },
  };
}
