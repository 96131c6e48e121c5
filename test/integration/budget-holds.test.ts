// A budget holds however turns arrive: each model call is held at the most it can cost before it is
// sent (its input and MODEL_STEP_MAX_OUTPUT_TOKENS of output), so turns running at once overshoot a
// budget by at most one call's hold; a call cut after the provider began to answer is charged its
// input; a model with no price is charged at UNPRICED_MODEL_PRICE; and a send may choose only the
// models SEND_MODELS lists.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { holdBudget, settleBudgetHold } from '../../store/budgets.ts';

/** USD per token of the fake's model: 100 per million tokens, in and out. */
const PER_TOKEN = 100 / 1_000_000;
const MAX_OUTPUT_TOKENS = 1_000;

const test = agentTest({
  MODEL_PRICES: 'openai-compatible:fake-model=100/100',
  UNPRICED_MODEL_PRICE: '10/30',
  MODEL_STEP_MAX_OUTPUT_TOKENS: String(MAX_OUTPUT_TOKENS),
  SEND_MODELS: 'openai-compatible:fake-model*',
});
test.beforeEach(({ env }) => {
  env.fake.reset();
  env.fake.setHandler(undefined);
});

interface Reply {
  status: string;
  reply?: string;
  error?: string;
}

const send = (env: AgentEnv, who: TestUser, sessionId: string, extra: Record<string, unknown> = {}) =>
  call<Reply>(`${env.api.url}/session/${sessionId}`, { headers: who.auth, json: { parts: [{ type: 'text', text: 'go' }], ...extra } });

async function agentSpent(env: AgentEnv, who: TestUser, name: string): Promise<number> {
  const usage = await call<{ agents: { name: string; monthSpentUsd: number }[] }>(`${env.api.url}/usage`, { headers: who.auth });
  return usage.body.agents.find((agent) => agent.name === name)!.monthSpentUsd;
}

const setBudget = (env: AgentEnv, who: TestUser, name: string, monthlyUsd: number | null) =>
  call(`${env.api.url}/agent/${name}/budget`, { method: 'PUT', headers: who.auth, json: { monthlyUsd } });

test('ten turns at once overshoot a budget by at most one call’s hold, not by nine more calls', async ({ env }) => {
  const user = await createTestUser(env.api.db);
  const sessions = [await sessionAs(env, user, {}, 'together')];
  for (let index = 1; index < 10; index++) sessions.push(await createSessionOf(env, user, 'together'));
  const budget = 0.05;
  await setBudget(env, user, 'together', budget);
  // Each reply costs 0.02 (as the provider reports it); slow enough that all ten run together.
  env.fake.setHandler(() => ({ text: 'Done.', delayMs: 600, usage: { promptTokens: 100, completionTokens: 100, cost: 0.02 } }));

  const results = await Promise.all(sessions.map((session) => send(env, user, session)));
  const spent = await agentSpent(env, user, 'together');
  // A call's hold: its input (a few dozen tokens here) and its most output, at the model's price.
  const hold = (200 + MAX_OUTPUT_TOKENS) * PER_TOKEN;
  expect(spent).toBeGreaterThanOrEqual(budget);
  expect(spent).toBeLessThanOrEqual(budget + hold);
  const failed = results.filter((result) => result.body.status === 'failed');
  for (const result of failed) expect(result.body.error).toMatch(/^The monthly budget of agent "together" is spent/);
  expect(env.fake.requests.length).toBe(10 - failed.length);
});

test('a turn aborted after its first token is charged its input and what it wrote; a refused call costs nothing', async ({ env }) => {
  // The environment's own user: env.waitForEvents reads as that user.
  const user = env.user;
  const session = await sessionAs(env, user, {}, 'cut');
  await setBudget(env, user, 'cut', 10);

  // Refused by the provider before it answered anything: not billed, not charged.
  env.fake.enqueue({ status: 400, errorBody: { error: { message: 'bad request', type: 'invalid_request_error' } } });
  expect((await send(env, user, session)).body.status).toBe('failed');
  expect(await agentSpent(env, user, 'cut')).toBe(0);

  env.fake.enqueue({ text: ['Partial ', 'answer ', 'never ', 'finished'], stallAfterChunks: 1 });
  const taken = await call<{ messageId: string }>(`${env.api.url}/session/${session}?async=1`, {
    headers: user.auth,
    json: { parts: [{ type: 'text', text: 'a question whose prompt the provider reads and bills' }] },
  });
  expect(taken.status).toBe(202);
  await env.waitForEvents(session, (events) => events.some((event) => event.type === 'message.part.delta'));
  expect((await call(`${env.api.url}/session/${session}/abort`, { method: 'POST', headers: user.auth, json: {} })).status).toBe(200);
  await env.waitForEvents(session, (events) => events.some((event) => event.type === 'turn.aborted'));

  const spent = await agentSpent(env, user, 'cut');
  // Its input (the conversation, estimated) and "Partial " (2 tokens), never the most it could have written.
  expect(spent).toBeGreaterThan(10 * PER_TOKEN);
  expect(spent).toBeLessThan(MAX_OUTPUT_TOKENS * PER_TOKEN);
});

/** A user of its own with agent `name` under a budget of `usd`, and the agent's id. */
async function budgetedAgent(env: AgentEnv, name: string, usd: number): Promise<{ user: TestUser; agentId: string }> {
  const user = await createTestUser(env.api.db);
  await sessionAs(env, user, {}, name);
  await setBudget(env, user, name, usd);
  const { rows } = await env.api.db.query<{ id: string }>('SELECT id FROM agents WHERE user_id = $1 AND name = $2', [user.userId, name]);
  return { user, agentId: rows[0]!.id };
}

test('a hold whose worker died with its call counts its input, once it lapses', async ({ env }) => {
  const { user, agentId } = await budgetedAgent(env, 'lapsed', 1);
  const insertHold = (key: string, expiresInMs: number) =>
    env.api.db.query(
      `INSERT INTO budget_holds (hold_key, user_id, agent_id, reserved_usd, input_usd, expires_at)
       VALUES ($1, $2, $3, 0.5, 0.004, now() + $4 * interval '1 millisecond')`,
      [key, user.userId, agentId, expiresInMs],
    );
  // Still running: held, not spent.
  await insertHold('running', 60_000);
  expect(await agentSpent(env, user, 'lapsed')).toBe(0);
  // Lapsed unsettled: the provider billed the prompt it was sent.
  await insertHold('lapsed', -1);
  expect(await agentSpent(env, user, 'lapsed')).toBe(0.004);
});

test("a retry does not wait on its own dead attempt's hold: that hold lapses to its input; a charge is never reset", async ({ env }) => {
  const { user, agentId } = await budgetedAgent(env, 'retried', 1);
  const hold = (key: string, supersedes: string) =>
    holdBudget(env.api.db, {
      key,
      supersedes,
      userId: user.userId,
      agentId,
      amounts: { reservedUsd: 0.5, inputUsd: 0.01 },
      leaseMs: 60_000,
    });
  // The first attempt of a step holds the whole budget, and its worker dies with it.
  await env.api.db.query(
    `INSERT INTO budget_holds (hold_key, user_id, agent_id, reserved_usd, input_usd, expires_at)
     VALUES ('ses_x:msg_x:1:1', $1, $2, 1, 0.02, now() + interval '10 minutes')`,
    [user.userId, agentId],
  );
  // Another call cannot get in while it is held...
  expect((await hold('ses_x:msg_other:1:1', 'ses_x:msg_other:')).verdict).toBe('held');
  // ...but the same step's retry takes the dead attempt's hold for lapsed (charged its input) and runs.
  expect((await hold('ses_x:msg_x:1:2', 'ses_x:msg_x:')).verdict).toBe('room');
  expect(await agentSpent(env, user, 'retried')).toBe(0.02);

  // A charged attempt keeps its charge, whatever asks under its key again.
  await settleBudgetHold(env.api.db, 'ses_x:msg_x:1:2', 0.3);
  expect((await hold('ses_x:msg_x:1:2', 'ses_x:msg_x:')).verdict).toBe('room');
  expect(await agentSpent(env, user, 'retried')).toBeCloseTo(0.32, 10);
});

test('a model nothing prices runs at UNPRICED_MODEL_PRICE and is counted at it', async ({ env }) => {
  const user = await createTestUser(env.api.db);
  const session = await sessionAs(env, user, { model: { providerId: 'openai-compatible', modelId: 'gpt-4-turbo' } }, 'ceiling');
  await setBudget(env, user, 'ceiling', 0.01);
  env.fake.setHandler(() => ({ text: 'Done.', usage: { promptTokens: 100_000, completionTokens: 50 } }));

  expect((await send(env, user, session)).body).toMatchObject({ status: 'completed' });
  // 100,000 input tokens at 10 and 50 output tokens at 30 per million.
  const cost = 1 + 50 * (30 / 1_000_000);
  expect(await agentSpent(env, user, 'ceiling')).toBeCloseTo(cost, 10);
  const stopped = await send(env, user, session);
  expect(stopped.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/^The monthly budget of agent "ceiling" is spent/) });
  expect(env.fake.requests.length).toBe(1);
});

test('a send chooses only a model SEND_MODELS lists (or the agent’s own); a regeneration too', async ({ env }) => {
  const user = await createTestUser(env.api.db);
  const session = await sessionAs(env, user, {}, 'chooser');
  const refused = await call<{ detail: string; errors: { path: string }[] }>(`${env.api.url}/session/${session}`, {
    headers: user.auth,
    json: { parts: [{ type: 'text', text: 'go' }], model: { modelId: 'gpt-4o' } },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(
    /openai-compatible:gpt-4o is not a model a send may choose here.*openai-compatible:fake-model\*.*SEND_MODELS/,
  );
  expect(refused.body.errors[0]!.path).toBe('/model');

  env.fake.enqueue({ text: 'Large.' }, { text: 'Own.' });
  expect((await send(env, user, session, { model: { modelId: 'fake-model-large' } })).body).toMatchObject({ status: 'completed' });
  expect(env.fake.requests[0]!.body.model).toBe('fake-model-large');
  const done = await send(env, user, session, { model: { providerId: 'openai-compatible', modelId: 'fake-model' } });
  expect(done.body).toMatchObject({ status: 'completed' });

  const messages = await call<{ messages: { id: string; role: string }[] }>(`${env.api.url}/session/${session}`, { headers: user.auth });
  const reply = messages.body.messages.findLast((message) => message.role === 'assistant')!;
  const regenerated = await call(`${env.api.url}/session/${session}/regenerate`, {
    headers: user.auth,
    json: { assistantMessageId: reply.id, model: { modelId: 'claude-opus-4' } },
  });
  expect(regenerated.status).toBe(400);
});

async function createSessionOf(env: AgentEnv, who: TestUser, name: string): Promise<string> {
  const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: who.auth, json: {} });
  expect(session.status).toBe(201);
  return session.body.id;
}
