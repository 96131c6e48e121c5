// Eval runs as the integration tests start and read them: through the API, as the file's user.
import { expect, vi } from 'vitest';
import type { AgentEnv } from './agent-env.ts';
import { call } from '../client/request.ts';
import type { EvalRunView } from '../../../contract/operations/evals.ts';

/** Starts a run of the agent `name` (202 expected) and answers its id. */
export async function startEval(env: AgentEnv, name: string, body: Record<string, unknown>): Promise<string> {
  const started = await call<{ id: string }>(`${env.api.url}/agent/${name}/evals`, { headers: env.user.auth, json: body });
  expect(started.status, started.text).toBe(202);
  return started.body.id;
}

/** The run once it is no longer running. */
export async function evalEnded(env: AgentEnv, id: string, timeout = 60_000): Promise<EvalRunView> {
  return vi.waitFor(
    async () => {
      const read = await call<EvalRunView>(`${env.api.url}/evals/${id}`, { headers: env.user.auth });
      expect(read.body.status).not.toBe('running');
      return read.body;
    },
    { timeout, interval: 200 },
  );
}

/** A run started and waited for to its end. */
export async function runEval(env: AgentEnv, name: string, body: Record<string, unknown>): Promise<EvalRunView> {
  return evalEnded(env, await startEval(env, name, body));
}
