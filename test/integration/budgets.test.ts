// Monthly spend budgets fail closed before the model is called: an agent's (set by its owner) and a
// user's (set by an admin). A turn past either fails with `turn.failed` naming the budget, the model
// gets no request, another agent or user goes on; raising the budget lets turns run again, and
// GET /usage shows spend against each budget. A model nothing prices is not called while a budget
// applies. (Holds of concurrent calls, aborted calls' charges, the unpriced ceiling: budget-holds.test.ts.)
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

// The fake's model is priced by the operator, as a gateway's own models must be for a budget to count them;
// the costs the fake reports (usage.cost) still decide what each reply cost.
const test = agentTest({ MODEL_PRICES: 'openai-compatible:fake-model=1/1' });
test.beforeEach(({ env }) => env.fake.reset());

interface Reply {
  status: string;
  reply?: string;
  error?: string;
}

const send = (env: AgentEnv, who: TestUser, sessionId: string) =>
  call<Reply>(`${env.api.url}/session/${sessionId}`, { headers: who.auth, json: { parts: [{ type: 'text', text: 'go' }] } });

/** A reply the fake says cost `cost` USD (usage.cost, as OpenRouter reports it). */
const costing = (env: AgentEnv, cost: number) =>
  env.fake.enqueue({ text: 'Done.', usage: { promptTokens: 10, completionTokens: 5, cost } });

test("an agent's budget: spent, its next turn fails before any model call; raised, it runs; another agent is not stopped", async ({
  env,
}) => {
  const user = await createTestUser(env.api.db);
  const capped = await sessionAs(env, user, {}, 'capped');
  const free = await sessionAs(env, user, {}, 'free');
  const set = await call<{ monthlyUsd: number; spentUsd: number; month: string }>(`${env.api.url}/agent/capped/budget`, {
    method: 'PUT',
    headers: user.auth,
    json: { monthlyUsd: 0.05 },
  });
  expect(set.body).toEqual({ monthlyUsd: 0.05, spentUsd: 0, month: new Date().toISOString().slice(0, 7) });

  costing(env, 0.03);
  expect((await send(env, user, capped)).body).toMatchObject({ status: 'completed' });
  costing(env, 0.03);
  expect((await send(env, user, capped)).body).toMatchObject({ status: 'completed' });
  // 0.06 of 0.05 spent: the next turn stops before the model is asked.
  const requests = env.fake.requests.length;
  const stopped = await send(env, user, capped);
  expect(stopped.body.status).toBe('failed');
  expect(stopped.body.error).toMatch(
    /^The monthly budget of agent "capped" is spent: USD 0\.0600 of USD 0\.0500 in \d{4}-\d{2} \(UTC\)\. Its owner can raise it with PUT \/agent\/capped\/budget$/,
  );
  expect(env.fake.requests.length).toBe(requests);

  costing(env, 0.01);
  expect((await send(env, user, free)).body).toMatchObject({ status: 'completed' });
  const usage = await call<{ agents: { name: string; monthlyBudgetUsd: number | null; monthSpentUsd: number }[] }>(`${env.api.url}/usage`, {
    headers: user.auth,
  });
  expect(usage.body.agents.map(({ name, monthlyBudgetUsd, monthSpentUsd }) => ({ name, monthlyBudgetUsd, monthSpentUsd }))).toEqual([
    { name: 'capped', monthlyBudgetUsd: 0.05, monthSpentUsd: 0.06 },
    { name: 'free', monthlyBudgetUsd: null, monthSpentUsd: 0.01 },
  ]);

  // Raised, or removed, the agent runs again; a redeploy keeps the budget.
  await call(`${env.api.url}/agent/capped/budget`, { method: 'PUT', headers: user.auth, json: { monthlyUsd: 1 } });
  costing(env, 0.01);
  expect((await send(env, user, capped)).body).toMatchObject({ status: 'completed' });
  await sessionAs(env, user, {}, 'capped');
  const afterRedeploy = await call<{ agents: { name: string; monthlyBudgetUsd: number | null }[] }>(`${env.api.url}/usage`, {
    headers: user.auth,
  });
  expect(afterRedeploy.body.agents.find((agent) => agent.name === 'capped')!.monthlyBudgetUsd).toBe(1);
  expect((await call(`${env.api.url}/agent/nobody/budget`, { method: 'PUT', headers: user.auth, json: { monthlyUsd: 1 } })).status).toBe(
    404,
  );
  expect((await call(`${env.api.url}/agent/capped/budget`, { method: 'PUT', headers: user.auth, json: { monthlyUsd: -1 } })).status).toBe(
    400,
  );
});

test("a user's budget is an admin's to set, covers all the user's agents, and stops no other user", async ({ env }) => {
  const admin = await createTestUser(env.api.db, { admin: true });
  const user = await createTestUser(env.api.db);
  const first = await sessionAs(env, user, {}, 'first');
  const second = await sessionAs(env, user, {}, 'second');
  const budget = (who: TestUser, monthlyUsd: number | null) =>
    call(`${env.api.url}/admin/users/${user.userId}/budget`, { method: 'PUT', headers: who.auth, json: { monthlyUsd } });
  expect((await budget(user, 100)).status).toBe(403);
  expect((await budget(admin, 0.02)).status).toBe(200);

  costing(env, 0.02);
  expect((await send(env, user, first)).body).toMatchObject({ status: 'completed' });
  const stopped = await send(env, user, second);
  expect(stopped.body).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/^Your monthly budget is spent: USD 0\.0200 of USD 0\.0200/),
  });
  const usage = await call<{ budget: { monthlyUsd: number | null; spentUsd: number } }>(`${env.api.url}/usage`, { headers: user.auth });
  expect(usage.body.budget).toMatchObject({ monthlyUsd: 0.02, spentUsd: 0.02 });

  const other = await createTestUser(env.api.db);
  const theirs = await sessionAs(env, other, {}, 'theirs');
  costing(env, 5);
  expect((await send(env, other, theirs)).body).toMatchObject({ status: 'completed' });

  expect((await budget(admin, null)).status).toBe(200);
  costing(env, 0.01);
  expect((await send(env, user, second)).body).toMatchObject({ status: 'completed' });
});

test('while a budget applies, a model nothing prices is never called, whatever a send chooses', async ({ env }) => {
  const user = await createTestUser(env.api.db);
  const session = await sessionAs(env, user, {}, 'pricey');
  await call(`${env.api.url}/agent/pricey/budget`, { method: 'PUT', headers: user.auth, json: { monthlyUsd: 0.01 } });
  // What the finding's probe did: turns of 100,000 input tokens each on a model with no price.
  env.fake.setHandler(() => ({ text: 'Done.', usage: { promptTokens: 100_000, completionTokens: 50 } }));
  const unpriced = () =>
    call<Reply>(`${env.api.url}/session/${session}`, {
      headers: user.auth,
      json: { parts: [{ type: 'text', text: 'go' }], model: { modelId: 'gpt-4-turbo' } },
    });
  for (let turn = 0; turn < 3; turn++) {
    const refused = await unpriced();
    expect(refused.body.status).toBe('failed');
    expect(refused.body.error).toMatch(
      /^A monthly budget applies, and the model "gpt-4-turbo" of provider "openai-compatible" has no known price.*MODEL_PRICES/,
    );
  }
  expect(env.fake.requests.length).toBe(0);
  const budget = await call<{ agents: { name: string; monthSpentUsd: number }[] }>(`${env.api.url}/usage`, { headers: user.auth });
  expect(budget.body.agents.find((agent) => agent.name === 'pricey')!.monthSpentUsd).toBe(0);

  // Without a budget the same model runs (its cost unknown, not zero).
  await call(`${env.api.url}/agent/pricey/budget`, { method: 'PUT', headers: user.auth, json: { monthlyUsd: null } });
  expect((await unpriced()).body).toMatchObject({ status: 'completed', reply: 'Done.' });
  env.fake.setHandler(undefined);
});
