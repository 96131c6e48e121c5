// The LLM rubric judge of an eval, on the fake model: it is sent the rubric, the case's input and the
// candidate's reply, its score decides the verdict, and its prompt, answer and cost are in the report. Its
// call is held against the budgets as a step's is (a judge nothing prices is not asked while a budget
// applies) and what it cost counts in them. Before a run starts, its cost is estimated from the agent's
// recent turns, and `estimate: true` answers that without running anything.
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { runEval } from '../helpers/harness/evals.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { messageText } from '../helpers/fakes/fake-model.ts';
import type { EvalRunView } from '../../contract/operations/evals.ts';

const test = agentTest({ MODEL_PRICES: 'openai-compatible:fake-model=1/1' });
test.beforeEach(({ env }) => env.fake.reset());

const FAKE_MODEL = { providerId: 'openai-compatible', modelId: 'fake-model' };
const newName = () => `agent-${crypto.randomUUID().slice(0, 8)}`;

async function deploy(env: AgentEnv, name: string): Promise<void> {
  const deployed = await call(`${env.api.url}/deploy`, {
    headers: env.user.auth,
    json: { name, model: FAKE_MODEL, instructions: 'Greet people.' },
  });
  expect(deployed.status, deployed.text).toBeLessThan(300);
}

const RUBRIC = 'The reply greets the user by name, politely.';
/** A reply of the fake that cost `cost` USD, as the provider reports it. */
const costing = (text: string, cost: number) => ({ text, usage: { promptTokens: 10, completionTokens: 5, cost } });

test('a rubric judge scores each reply: at or above minScore passes, below fails, and the report shows its prompt, answer and cost', async ({
  env,
}) => {
  const name = newName();
  await deploy(env, name);
  // One case at a time: the case's turn, then its judge.
  env.fake.enqueue(
    costing('Hello Ada, lovely to meet you.', 0.01),
    costing('{"score": 0.9, "reason": "Greets Ada by name, politely."}', 0.002),
    costing('What do you want?', 0.01),
    costing('Sure. {"score": 0.2, "reason": "No name, not polite."}', 0.002),
  );
  const run = await runEval(env, name, {
    cases: [{ input: 'Hi, I am Ada' }, { input: 'Hi, I am Bo' }],
    graders: [{ kind: 'rubric', rubric: RUBRIC, minScore: 0.5 }],
    concurrency: 1,
  });

  expect(run.summary).toMatchObject({ cases: 2, passed: 1, failed: 1, errors: 0 });
  const [polite, rude] = run.cases;
  const judged = (evalCase: (typeof run.cases)[number] | undefined) => evalCase!.verdicts.find((verdict) => verdict.grader === 'rubric')!;
  expect(judged(polite)).toMatchObject({
    passed: true,
    score: 0.9,
    explanation: 'Scored 0.9 by openai-compatible/fake-model, at least the 0.5 needed: Greets Ada by name, politely.',
    judge: { model: 'openai-compatible/fake-model', answer: '{"score": 0.9, "reason": "Greets Ada by name, politely."}', costUsd: 0.002 },
  });
  expect(judged(polite).judge!.prompt).toContain(RUBRIC);
  expect(judged(polite).judge!.prompt).toContain('Hello Ada, lovely to meet you.');
  expect(judged(rude)).toMatchObject({ passed: false, score: 0.2 });
  expect(judged(rude).explanation).toMatch(/^Scored 0\.2 by openai-compatible\/fake-model, below the 0\.5 needed: No name/);
  // The case's cost is its turn's and its judge's.
  expect(polite!.costUsd).toBeCloseTo(0.012, 6);
  expect(run.summary.costUsd).toBeCloseTo(0.024, 6);

  // What the judge was sent: its instructions, the rubric, the case's input and the reply it judged.
  const judgeRequest = env.fake.requests[1]!.body;
  expect(messageText(judgeRequest.messages[0])).toMatch(/^You grade the reply of an AI agent against a rubric/);
  expect(messageText(judgeRequest.messages.at(-1))).toContain('Hi, I am Ada');
  expect(judgeRequest.tools).toBeUndefined();
});

test('a judge whose answer holds no score fails its verdict with the answer; a turn that failed is not judged', async ({ env }) => {
  const name = newName();
  await deploy(env, name);
  env.fake.enqueue(costing('Hello Ada.', 0.001), costing('It is fine I guess', 0.001), { status: 400 });
  const run = await runEval(env, name, {
    cases: [{ input: 'Hi, I am Ada' }, { input: 'Hi, I am Bo' }],
    graders: [{ kind: 'rubric', rubric: RUBRIC }],
    concurrency: 1,
  });
  const [unscored, failedTurn] = run.cases;
  expect(unscored!.verdicts.at(-1)).toMatchObject({
    grader: 'rubric',
    passed: false,
    explanation: 'The judge openai-compatible/fake-model answered without a score from 0 to 1: "It is fine I guess"',
  });
  expect(failedTurn!.verdicts.at(-1)).toEqual({ grader: 'rubric', passed: false, explanation: 'Not judged: the turn did not complete' });
  // Two turns and one judge: the failed turn's reply was not sent to a judge.
  expect(env.fake.requests).toHaveLength(3);
});

test('while a budget applies the judge is held to it: an unpriced judge is not asked; a priced one is counted in the spend', async ({
  env,
}) => {
  const name = newName();
  await deploy(env, name);
  const budget = await call(`${env.api.url}/agent/${name}/budget`, { method: 'PUT', headers: env.user.auth, json: { monthlyUsd: 5 } });
  expect(budget.status, budget.text).toBe(200);

  env.fake.enqueue(costing('Hello Ada.', 0.01));
  const unpriced = await runEval(env, name, {
    cases: [{ input: 'Hi, I am Ada' }],
    graders: [{ kind: 'rubric', rubric: RUBRIC, model: { providerId: 'openai-compatible', modelId: 'fake-model-large' } }],
  });
  expect(unpriced.cases[0]!.verdicts.at(-1)).toMatchObject({ grader: 'rubric', passed: false });
  expect(unpriced.cases[0]!.verdicts.at(-1)!.explanation).toMatch(
    /^The judge openai-compatible\/fake-model-large was not asked: A monthly budget applies, and the model "fake-model-large" .* has no known price/,
  );
  // Only the turn reached the model.
  expect(env.fake.requests).toHaveLength(1);

  env.fake.enqueue(costing('Hello Ada.', 0.01), costing('{"score": 1, "reason": "Yes."}', 0.003));
  const priced = await runEval(env, name, { cases: [{ input: 'Hi, I am Ada' }], graders: [{ kind: 'rubric', rubric: RUBRIC }] });
  expect(priced.cases[0]!.status).toBe('passed');
  expect(priced.cases[0]!.costUsd).toBeCloseTo(0.013, 6);
  const usage = await call<{ agents: { name: string; monthSpentUsd: number }[] }>(`${env.api.url}/usage`, { headers: env.user.auth });
  // Two turns and one judge.
  expect(usage.body.agents.find((agent) => agent.name === name)!.monthSpentUsd).toBeCloseTo(0.023, 6);
});

test('a judge of a provider the service does not know is refused before anything runs', async ({ env }) => {
  const name = newName();
  await deploy(env, name);
  const refused = await call(`${env.api.url}/agent/${name}/evals`, {
    headers: env.user.auth,
    json: { cases: [{ input: 'Hi' }], graders: [{ kind: 'rubric', rubric: RUBRIC, model: { providerId: 'nope', modelId: 'x' } }] },
  });
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('/graders/0/model/providerId');
});

test('the cost of a run is estimated before it starts from the agent’s recent turns; estimate: true runs nothing', async ({ env }) => {
  const name = newName();
  await deploy(env, name);
  const ask = (body: Record<string, unknown>) =>
    call<{ id?: string; cases: number; estimate: { costUsd: number | null; basis: string } }>(`${env.api.url}/agent/${name}/evals`, {
      headers: env.user.auth,
      json: body,
    });
  const cases = [{ input: 'a' }, { input: 'b' }, { input: 'c' }];
  const unknown = await ask({ cases, estimate: true });
  expect(unknown.status).toBe(200);
  expect(unknown.body).toEqual({ cases: 3, estimate: { costUsd: null, basis: 'The agent has no turns yet to estimate from' } });

  // Two turns of the agent, at 0.01 and 0.03.
  for (const cost of [0.01, 0.03]) {
    const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
    env.fake.enqueue(costing('Hi.', cost));
    const sent = await call(`${env.api.url}/session/${session.body.id}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'hi' }] },
    });
    expect(sent.status, sent.text).toBe(200);
  }
  const estimated = await ask({ cases, estimate: true });
  expect(estimated.body.estimate.costUsd).toBeCloseTo(0.06, 6);
  expect(estimated.body.estimate.basis).toBe(
    "3 turns at USD 0.020000 each, the average over 2 turns of the agent's latest sessions; rubric judges not included",
  );
  const listed = await call<{ runs: unknown[] }>(`${env.api.url}/agent/${name}/evals`, { headers: env.user.auth });
  expect(listed.body.runs).toEqual([]);

  // A run started answers the same estimate with its id.
  env.fake.enqueue(costing('x', 0.01), costing('y', 0.01), costing('z', 0.01));
  const started = await ask({ cases });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ cases: 3, estimate: estimated.body.estimate });
  expect(started.body.id).toMatch(/^evl_/);
  await vi.waitFor(
    async () =>
      expect((await call<EvalRunView>(`${env.api.url}/evals/${started.body.id}`, { headers: env.user.auth })).body.status).toBe(
        'completed',
      ),
    { timeout: 60_000, interval: 200 },
  );
});
