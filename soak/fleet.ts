// The service's processes, as production runs them: API processes (each on a port of its own, behind
// the balancer) and workers (on one task queue), each a `node --import tsx` child from source with its
// output in a log file. A member can be SIGKILLed and started again in its place (same port, same log),
// and the fleet says how long each start took until the process was ready (serving, or polling).
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../dev/ports.ts';
import { forkChild, stopChild, type Child } from '../dev/supervisor.ts';
import { WORKER_NODE_FLAGS } from '../workers/node-flags.ts';

/** A process not ready by then fails the soak: its log says why. */
const READY_TIMEOUT_MS = 120_000;

export type Role = 'api' | 'worker';

export interface Member {
  name: string;
  role: Role;
  /** The API's port (fixed across restarts, so the balancer finds it again). */
  port?: number;
  child?: Child;
}

export interface Fleet {
  members: readonly Member[];
  /** Ports of the APIs whose current process is ready. */
  apiPorts(): number[];
  /** SIGKILL, then a new process in its place; answers the new one's time to ready. */
  killAndRestart(member: Member): Promise<{ restartMs: number }>;
  stop(): Promise<void>;
}

async function startMember(member: Member, env: NodeJS.ProcessEnv, logDir: string): Promise<void> {
  const output = fs.openSync(path.join(logDir, `${member.name}.log`), 'a');
  member.child = forkChild({
    name: member.name,
    file: member.role === 'api' ? 'api/server.ts' : 'workers/main.ts',
    env: { ...env, ...(member.port ? { PORT: String(member.port), HOST: '127.0.0.1' } : {}) },
    nodeFlags: member.role === 'worker' ? WORKER_NODE_FLAGS : [],
    readyTimeoutMs: READY_TIMEOUT_MS,
    output,
  });
  fs.closeSync(output);
  await member.child.ready.catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; see ${logDir}/${member.name}.log`);
  });
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
      member.child?.process.kill('SIGKILL');
      await member.child?.exited;
      const began = performance.now();
      await start(member);
      return { restartMs: Math.round(performance.now() - began) };
    },
    async stop() {
      await Promise.all(members.map((member) => (member.child ? stopChild(member.child) : undefined)));
    },
  };
}
