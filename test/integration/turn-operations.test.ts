// What operators and billing rely on: every turn is findable in Temporal by the service's search
// attributes (in its session's workflow, where turns run), provider keys come from granted secrets, and cost reaches the message and the totals.
import { expect } from 'vitest';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';

// No provider key in the environment: the agent's granted secret must supply it.
const test = agentTest({ OPENAI_COMPATIBLE_API_KEY: '', OPENROUTER_BASE_URL: '', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

async function session(env: AgentEnv, bundle: Record<string, unknown>): Promise<string> {
  return env.newSession(bundle);
}

test('turns are findable by SessionId, AgentId and UserId: in the session workflow, with a readable summary', async ({ env }) => {
  await call(`${env.api.url}/secret/OPENAI_COMPATIBLE_API_KEY`, {
    method: 'PUT',
    headers: env.user.auth,
    json: { value: 'from-a-secret' },
  });
  const { name, agentId } = await env.deploy({ secretGrants: ['OPENAI_COMPATIBLE_API_KEY'] });
  const created = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  const sessionId = created.body.id;
  const before = env.fake.requests.length;
  const sent = await call<{ messageId: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hello' }] },
  });
  expect(sent.body.status).toBe('completed');
  expect(env.fake.requests[before]!.headers.authorization).toBe('Bearer from-a-secret');

  const query = `SessionId = "${sessionId}" AND AgentId = "${agentId}" AND UserId = "${env.user.userId}" AND Kind = "session"`;
  let found: { workflowId: string; type: string }[] = [];
  for (let tries = 0; tries < 50 && found.length === 0; tries++) {
    found = [];
    for await (const execution of env.worker.client.workflow.list({ query }))
      found.push({ workflowId: execution.workflowId, type: execution.type });
    if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(found).toEqual([{ workflowId: `session:${sessionId}`, type: 'sessionWorkflow' }]);
  const handle = env.worker.client.workflow.getHandle(found[0]!.workflowId);
  expect(await (await handle.describe()).staticSummary()).toContain(sessionId);
  // The turn ran there: its model step is an activity of the session workflow.
  const history = await handle.fetchHistory();
  const activities = (history.events ?? []).flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(activities).toContain('runModelStep');
});

test('a missing provider key fails the turn with a message naming what to set', async ({ env }) => {
  const sessionId = await session(env, {});
  const response = await call<{ status: string; error: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hi' }] },
  });
  // openai-compatible may run without a key; the fake accepts it. A provider that needs one fails clearly.
  expect(response.body.status).toBe('completed');
  const openrouter = await session(env, { model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' } });
  const failed = await call<{ status: string; error: string }>(`${env.api.url}/session/${openrouter}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'hi' }] },
  });
  expect(failed.body.status).toBe('failed');
  expect(failed.body.error).toMatch(/OPENROUTER_API_KEY/);
});

test('provider-reported cost lands on the message and on the session totals', async ({ env }) => {
  await call(`${env.api.url}/secret/OPENROUTER_API_KEY`, { method: 'PUT', headers: env.user.auth, json: { value: 'or-key' } });
  await call(`${env.api.url}/secret/OPENROUTER_BASE_URL`, { method: 'PUT', headers: env.user.auth, json: { value: env.fake.baseUrl } });
  const sessionId = await session(env, {
    model: { providerId: 'openrouter', modelId: 'anthropic/claude-sonnet-4' },
    secretGrants: ['OPENROUTER_API_KEY', 'OPENROUTER_BASE_URL'],
  });
  env.fake.enqueue(
    { text: 'priced', usage: { promptTokens: 100, completionTokens: 20, cost: 0.0125 } },
    { text: 'again', usage: { promptTokens: 130, completionTokens: 5, cost: 0.0025 } },
  );
  for (const text of ['one', 'two']) {
    const sent = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text }] },
    });
    expect(sent.body.status).toBe('completed');
  }
  const read = await call<{
    usage: { inputTokens: number; outputTokens: number; costUsd: number };
    messages: { role: string; usage: unknown; costUsd: number }[];
  }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
  const assistants = read.body.messages.filter((message) => message.role === 'assistant');
  expect(assistants.map((message) => message.costUsd)).toEqual([0.0125, 0.0025]);
  expect(assistants[0]!.usage).toEqual({ inputTokens: 100, outputTokens: 20 });
  expect(read.body.usage).toEqual({ inputTokens: 230, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.015 });
  const events = await env.events(sessionId);
  expect(events.filter((event) => event.type === 'turn.completed').map((event) => (event as { costUsd: number }).costUsd)).toEqual([
    0.0125, 0.0025,
  ]);
});
