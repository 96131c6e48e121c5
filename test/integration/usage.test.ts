// GET /usage: tokens and cost per agent over its sessions, and per agent and UTC day from the replies,
// summed by the service for the calling user only; a window beyond its bounds is a 400.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';
import { Client } from '../../sdk/src/index.ts';

// One tenant: the prompt cache's counts are shown behind the operator's key too (docs/models.md, Caching and cost).
const test = agentTest({ SHARED_CACHE_COUNTS: 'true' });

test('per agent and per day, for this user only', async ({ env }) => {
  const user = await createTestUser(env.api.db);
  const client = new Client({ baseUrl: env.api.url, apiKey: user.apiKey });
  const deploy = async (name: string) =>
    (await client.agents.deploy({ name, model: { providerId: 'openai-compatible', modelId: 'fake-model' } })) as { agentId: string };
  const busy = await deploy('busy');
  const quiet = await deploy('quiet');
  const sessions: string[] = [];
  for (const text of ['one', 'two']) {
    const { id } = await client.sessions.create('busy');
    sessions.push(id);
    // The second reply's input was served in part by the provider's prompt cache (Chat Completions' cached_tokens).
    env.fake.enqueue({
      text: `Reply ${text}.`,
      usage: { promptTokens: 100, completionTokens: 20, ...(text === 'two' ? { cacheReadTokens: 60 } : {}) },
    });
    await client.sessions.send(id, text).done();
  }
  // Another user's reply counts for nobody else.
  const otherSession = await env.newSession();
  env.fake.enqueue({ text: 'Elsewhere.', usage: { promptTokens: 999, completionTokens: 999 } });
  await call(`${env.api.url}/session/${otherSession}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'hi' }] } });

  const usage = await client.usage.retrieve({ days: 7 });
  expect(usage.agents).toEqual([
    {
      agentId: busy.agentId,
      name: 'busy',
      sessions: 2,
      inputTokens: 200,
      outputTokens: 40,
      cacheReadTokens: 60,
      cacheWriteTokens: 0,
      costUsd: 0,
      monthlyBudgetUsd: null,
      monthSpentUsd: 0,
    },
    {
      agentId: quiet.agentId,
      name: 'quiet',
      sessions: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      monthlyBudgetUsd: null,
      monthSpentUsd: 0,
    },
  ]);
  expect(usage.budget).toEqual({ month: new Date().toISOString().slice(0, 7), monthlyUsd: null, spentUsd: 0 });
  const today = new Date().toISOString().slice(0, 10);
  expect(usage.daily).toEqual([
    {
      day: today,
      agentId: busy.agentId,
      replies: 2,
      inputTokens: 200,
      outputTokens: 40,
      cacheReadTokens: 60,
      cacheWriteTokens: 0,
      costUsd: 0,
    },
  ]);
  // The session's own totals, and its reply's usage, say the same.
  const cachedSession = await call<{ usage: unknown; messages: Array<{ role: string; usage?: unknown }> }>(
    `${env.api.url}/session/${sessions[1]}`,
    {
      headers: user.auth,
    },
  );
  expect(cachedSession.body.usage).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 0, costUsd: 0 });
  expect(cachedSession.body.messages.find((message) => message.role === 'assistant')?.usage).toEqual({
    inputTokens: 100,
    outputTokens: 20,
    cacheReadTokens: 60,
  });
  const since = new Date(usage.since);
  expect(since.getUTCHours()).toBe(0);
  expect(Math.round((Date.parse(`${today}T00:00:00Z`) - since.getTime()) / 86_400_000)).toBe(6);

  for (const days of ['0', '91', 'many']) {
    const refused = await call<{ errors: Array<{ path: string }> }>(`${env.api.url}/usage?days=${days}`, { headers: user.auth });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]!.path).toBe('/days');
  }
});
