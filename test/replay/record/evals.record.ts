// Records an eval run (workflows/eval-run.ts): the run and one of its cases, each case a child workflow
// whose activity runs a session of the candidate to its verdicts; and a run cancelled while its case's turn
// is held, whose case is cancelled and whose run ends cancelled.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { evalCaseWorkflowId, evalRunWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import { recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
beforeAll(async () => {
  env = await startAgentEnv({ ...RECORDING_ENV });
});
afterAll(async () => {
  await env?.close();
});

async function startEval(name: string, cases: unknown[]): Promise<string> {
  const started = await call<{ id: string }>(`${env.api.url}/agent/${name}/evals`, {
    headers: env.user.auth,
    json: { cases, concurrency: 2 },
  });
  expect(started.status, started.text).toBe(202);
  return started.body.id;
}

test('evalRunWorkflow, evalCaseWorkflow: two cases graded, the run completed', async () => {
  const record = recorder(env.worker.client, [env.user.apiKey]);
  if (!record.wanted('evalRunWorkflow', 'completed')) return;
  const { name } = await env.deploy({ instructions: 'Answer.' });
  env.fake.enqueue({ text: 'yes' }, { text: 'no' });
  const id = await startEval(name, [
    { input: 'first', expect: { contains: 'yes' } },
    { input: 'second', expect: { contains: 'yes' } },
  ]);
  // The run first: its cases are started as it goes, and have all closed once it has.
  await record.closed(evalRunWorkflowId(id), 'evalRunWorkflow', 'completed');
  await record.closed(evalCaseWorkflowId(id, 0), 'evalCaseWorkflow', 'graded');
});

test('evalRunWorkflow: cancelled while its case runs', async () => {
  const record = recorder(env.worker.client, [env.user.apiKey]);
  if (!record.wanted('evalRunWorkflow', 'cancelled')) return;
  const { name } = await env.deploy({ instructions: 'Answer.' });
  let release!: () => void;
  env.fake.enqueue({ text: 'late', holdUntil: new Promise<void>((resolve) => (release = resolve)) });
  const id = await startEval(name, [{ input: 'wait' }]);
  for (let waited = 0; waited < 20_000; waited += 100) {
    const read = await call<{ cases: Array<{ sessionId: string | null }> }>(`${env.api.url}/evals/${id}`, { headers: env.user.auth });
    if (read.body.cases[0]?.sessionId) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await call(`${env.api.url}/evals/${id}/cancel`, { method: 'POST', headers: env.user.auth })).status).toBe(202);
  await record.closed(evalRunWorkflowId(id), 'evalRunWorkflow', 'cancelled');
  release();
});
