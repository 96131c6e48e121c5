// A session of a user other than an environment's own: deploys an agent as `who` (the fake model,
// `bundle` on top) and opens a session of it, for tests where several tenants share one service.
import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import { call } from '../client/request.ts';
import type { AgentEnv } from './agent-env.ts';
import type { TestUser } from './users.ts';

export async function sessionAs(
  env: AgentEnv,
  who: TestUser,
  bundle: Record<string, unknown> = {},
  name = `agent-${randomUUID().slice(0, 8)}`,
): Promise<string> {
  const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
    headers: who.auth,
    json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, ...bundle },
  });
  expect(deployed.body.ok, deployed.text).toBe(true);
  const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: who.auth, json: {} });
  expect(session.status).toBe(201);
  return session.body.id;
}
