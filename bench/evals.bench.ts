// What an eval costs beside the plain turns it is made of (docs/evals.md): 100 written cases at
// concurrency 10 on a fake model that answers at once, against 100 fresh sessions each sent one waiting
// message, 10 at a time. An eval case adds its run and case workflows, the case's activity (session,
// send, the wait for the turn's end, the transcript and the grading) to the turn. Reported per case: wall
// time and CPU of this process (API and worker run here) and of the machine (Temporal and PostgreSQL too).
// Every case must pass and every turn complete: a figure with failures is no result.
import http from 'node:http';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack } from './agent-stack.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { cpuSnapshot, cpuSpent } from './cpu-meter.ts';

const CASES = 100;
const CONCURRENCY = 10;

/** CPU per case, rounded to 0.1 ms. */
const rounded = (spent: Record<string, number | undefined>) =>
  Object.fromEntries(Object.entries(spent).map(([part, ms]) => [part, ms === undefined ? undefined : Math.round(ms * 10) / 10]));

const evals: Benchmark = {
  name: 'evals',
  description: `an eval of ${CASES} cases at concurrency ${CONCURRENCY} beside ${CASES} plain turns ${CONCURRENCY} at a time`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: 'ok' } } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 2 });
    try {
      const name = await stack.deployAgent({ instructions: 'Answer ok.' });
      const pids = infra.pids();

      // Plain turns: a new session and a waiting send each, ten at a time.
      const plainBefore = cpuSnapshot(pids);
      const plainStart = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CASES) {
            next += 1;
            await stack.send(agent, await stack.newSession(name), 'hello');
          }
        }),
      );
      const plainMs = Date.now() - plainStart;
      const plainCpu = cpuSpent(plainBefore, cpuSnapshot(pids), CASES);
      log(`plain turns: ${plainMs} ms`);

      const evalBefore = cpuSnapshot(pids);
      const evalStart = Date.now();
      const started = expectStatus(
        await timedRequest<{ id: string }>(agent, `${stack.url}/agent/${name}/evals`, {
          method: 'POST',
          headers: stack.headers,
          body: JSON.stringify({
            concurrency: CONCURRENCY,
            cases: Array.from({ length: CASES }, (_, i) => ({ input: `case ${i}`, expect: { contains: 'ok' } })),
          }),
          timeoutMs: 30_000,
        }),
        202,
        'POST /agent/<name>/evals',
      );
      let run: { status: string; summary: { passed: number; failed: number; errors: number } };
      for (;;) {
        run = expectStatus(
          await timedRequest<typeof run>(agent, `${stack.url}/evals/${started.id}`, {
            method: 'GET',
            headers: stack.headers,
            timeoutMs: 30_000,
          }),
          200,
          'GET /evals/<id>',
        );
        if (run.status !== 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const evalMs = Date.now() - evalStart;
      const evalCpu = cpuSpent(evalBefore, cpuSnapshot(pids), CASES);
      if (run.status !== 'completed' || run.summary.passed !== CASES)
        throw new Error(`the eval did not pass every case: ${JSON.stringify(run.summary)} (${run.status})`);

      const plainPerCase = plainMs / CASES;
      const evalPerCase = evalMs / CASES;
      return {
        cases: CASES,
        concurrency: CONCURRENCY,
        failedCases: 0,
        method:
          'wall time from the first request to the last answer (plain: the last waiting send; eval: the poll that read it ended), ' +
          'divided by the cases; CPU from /proc for this process (API and worker), Temporal, PostgreSQL and the machine',
        plainTurn: { wallMsPerCase: Math.round(plainPerCase * 10) / 10, cpuMsPerCase: rounded(plainCpu) },
        evalCase: { wallMsPerCase: Math.round(evalPerCase * 10) / 10, cpuMsPerCase: rounded(evalCpu) },
        ratio: {
          wall: Math.round((evalPerCase / plainPerCase) * 100) / 100,
          machineCpu:
            evalCpu.machine !== undefined && plainCpu.machine !== undefined
              ? Math.round((evalCpu.machine / plainCpu.machine) * 100) / 100
              : undefined,
        },
      };
    } finally {
      agent.destroy();
      await stack.close();
    }
  },
};

export default evals;
