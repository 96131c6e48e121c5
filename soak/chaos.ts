// The faults: every so often (between half and one and a half times the mean) one API process or
// worker, chosen at random, is SIGKILLed (no graceful close: its sockets and in-flight tasks simply
// die) and a new one started in its place. Each kill is logged with when it happened and how long its
// replacement took to be ready.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fleet } from './fleet.ts';

export interface Kill {
  target: string;
  /** Wall-clock time of the SIGKILL, comparable with the events' `at`. */
  at: number;
  restartMs: number;
}

export async function runChaos(fleet: Fleet, options: { meanMs: number; until: number; random: () => number }): Promise<Kill[]> {
  const kills: Kill[] = [];
  if (options.meanMs === 0) return kills;
  for (;;) {
    const pause = options.meanMs * (0.5 + options.random());
    if (performance.now() + pause >= options.until) return kills;
    await sleep(pause);
    const member = fleet.members[Math.floor(options.random() * fleet.members.length)]!;
    const at = Date.now();
    const { restartMs } = await fleet.killAndRestart(member);
    kills.push({ target: member.name, at, restartMs });
  }
}
