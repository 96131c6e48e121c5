// Budgets across agents calling agents: what a child session spends counts against the budget of the
// agent whose call opened it (and of every agent up its chain), GET /usage shows it on both sides, and
// once the caller's budget is spent a child's model call is refused before the model is asked.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { messageText, type FakeRequest, type FakeScript } from '../helpers/fakes/fake-model.ts';
import type { SessionEvent } from '../../contract/events.ts';

// The fake's model is priced by the operator, as a budget needs; the costs it reports decide what each reply cost.
const test = agentTest({ MODEL_PRICES: 'openai-compatible:fake-model=1/1' });

const systemOf = (request: FakeRequest) => messageText(request.body.messages.find((message) => message.role === 'system')) ?? '';
const costing = (cost: number, script: FakeScript): FakeScript => ({ ...script, usage: { promptTokens: 10, completionTokens: 5, cost } });

test("a child's spend counts against its caller's budget, shown on both sides; past it, a child's call is refused", async ({ env }) => {
  const helper = await env.deploy({ instructions: 'ROLE helper' });
  const boss = await env.deploy({ instructions: 'ROLE boss', agents: [{ name: helper.name }] });
  const costs = { boss: 0.01, helper: 0.1 };
  env.fake.setHandler((request) => {
    if (systemOf(request).includes('ROLE helper')) return costing(costs.helper, { text: 'Helped.' });
    return request.body.messages.at(-1)?.role === 'tool'
      ? costing(costs.boss, { text: `boss read ${messageText(request.body.messages.at(-1))}` })
      : costing(costs.boss, { toolCalls: [{ id: `call_${request.index}`, name: `agent_${helper.name}`, arguments: { message: 'Help' } }] });
  });
  const setBudget = (monthlyUsd: number) =>
    call(`${env.api.url}/agent/${boss.name}/budget`, { method: 'PUT', headers: env.user.auth, json: { monthlyUsd } });
  const turn = async () => {
    const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${boss.name}/session`, { headers: env.user.auth, json: {} })).body
      .id;
    const sent = await call<{ status: string; reply?: string; error?: string }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'Go' }] },
    });
    return { sessionId, ...sent.body };
  };
  const spent = async () => {
    const usage = await call<{ agents: { name: string; monthSpentUsd: number }[] }>(`${env.api.url}/usage`, { headers: env.user.auth });
    const of = (name: string) => usage.body.agents.find((agent) => agent.name === name)?.monthSpentUsd;
    return { boss: of(boss.name), helper: of(helper.name) };
  };

  expect((await setBudget(0.2)).status).toBe(200);
  // Boss's two steps (0.01 each) and the helper's reply (0.1): boss's budget counts all three.
  expect(await turn()).toMatchObject({ status: 'completed', reply: expect.stringContaining('Helped.') });
  const after = await spent();
  expect(after.helper).toBeCloseTo(0.1, 6);
  expect(after.boss).toBeCloseTo(0.12, 6);

  // Boss's next step costs 0.1 and spends its budget (0.22 of 0.2): the child it calls is refused before
  // its model is asked, and boss's own next step too.
  costs.boss = 0.1;
  const before = env.fake.requests.length;
  const refused = await turn();
  expect(refused.status).toBe('failed');
  expect(refused.error).toMatch(new RegExp(`^The monthly budget of agent "${boss.name}" is spent`));
  expect(env.fake.requests.slice(before).filter((request) => systemOf(request).includes('ROLE helper'))).toEqual([]);
  const events = await env.events(refused.sessionId);
  const failed = events.find((event): event is Extract<SessionEvent, { type: 'subagent.failed' }> => event.type === 'subagent.failed')!;
  const childEnd = (await env.events(failed.childSessionId)).find((event) => event.type === 'turn.failed') as Extract<
    SessionEvent,
    { type: 'turn.failed' }
  >;
  expect(childEnd.error).toMatch(new RegExp(`^The monthly budget of agent "${boss.name}", which called this one, is spent`));

  // A session of the helper that boss did not open is not boss's to pay for.
  const direct = (await call<{ id: string }>(`${env.api.url}/agent/${helper.name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const own = await call<{ status: string }>(`${env.api.url}/session/${direct}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'Hi' }] },
  });
  expect(own.body.status).toBe('completed');
});
