// Liveness and readiness, apart: the process is live while it serves HTTP; it is ready only while
// PostgreSQL and Temporal answer and a worker polls its task queue. Not ready, it names the task
// queue nobody polls and keeps serving reads.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { call } from '../helpers/client/request.ts';
import { Client } from '../../sdk/src/index.ts';

const test = agentTest();

interface Readiness {
  ok: boolean;
  serving: string;
  checks: Record<string, { ok: boolean; error?: string; taskQueue?: string; pollers?: { workflow: number; activity: number } }>;
}

test('ready while a worker polls its task queue: every check named and passing', async ({ env }) => {
  const ready = await call<Readiness>(`${env.api.url}/auth/health/ready`);
  expect(ready.status).toBe(200);
  expect(ready.headers.get('cache-control')).toBe('no-store');
  expect(ready.body).toMatchObject({
    ok: true,
    serving: 'everything',
    checks: { postgres: { ok: true }, temporal: { ok: true }, workers: { ok: true, taskQueue: env.env.TASK_QUEUE } },
  });
  expect(ready.body.checks.workers!.pollers!.workflow).toBeGreaterThanOrEqual(1);
  expect(ready.body.checks.workers!.pollers!.activity).toBeGreaterThanOrEqual(1);
  expect((await call(`${env.api.url}/auth/health/live`)).body).toEqual({ ok: true });
});

test('no worker on its task queue: not ready, naming the queue, while reads are served and the process is live', async ({ env }) => {
  const taskQueue = `nobody-polls-${randomUUID()}`;
  const api = await startTestApi({ ...env.env, TASK_QUEUE: taskQueue });
  try {
    const ready = await call<Readiness>(`${api.url}/auth/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({
      ok: false,
      serving: 'reads',
      checks: { postgres: { ok: true }, temporal: { ok: true }, workers: { ok: false, taskQueue, pollers: { workflow: 0, activity: 0 } } },
    });
    expect(ready.body.checks.workers!.error).toContain(`no worker polls task queue "${taskQueue}" for workflow or activity tasks`);

    // What it says it serves: reads answer as usual.
    const { name } = await env.deploy();
    expect((await call(`${api.url}/agent/${name}`, { headers: env.user.auth })).status).toBe(200);
    expect((await call(`${api.url}/auth/health/live`)).status).toBe(200);

    // The SDK hands the not-ready answer back rather than throwing it.
    const client = new Client({ baseUrl: api.url });
    expect(await client.health.ready()).toMatchObject({ ok: false, serving: 'reads' });
    expect(await client.health.live()).toEqual({ ok: true });
  } finally {
    await api.close();
  }
});
