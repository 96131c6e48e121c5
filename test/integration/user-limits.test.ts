// Limits count per user, whichever of its keys asks: API keys (device logins included), cron
// schedules across its agents, unanswered approvals (the API's and its agents' questions), stored
// upload bytes. Each refusal is the limit's own problem type naming its setting; GET /limits shows
// each limit and what is held against it; another user is never affected.
import { describe, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';

const test = agentTest(
  { KEYS_PER_USER: '3', SCHEDULES_PER_USER: '2', OPEN_APPROVALS_PER_USER: '2', STORED_BYTES_PER_USER: '1000' },
  { ownDataDir: true },
);
test.beforeEach(({ env }) => env.fake.reset());

const PROBLEMS = 'https://agent-service.dev/problems/';

interface Problem {
  type: string;
  status: number;
  detail: string;
}
type LimitView = { limit: number; used: number; setting: string };
type LimitsView = Record<'keys' | 'openStreams' | 'requests' | 'schedules' | 'openApprovals' | 'storedBytes', LimitView>;

const limitsOf = async (env: AgentEnv, who: TestUser) => (await call<LimitsView>(`${env.api.url}/limits`, { headers: who.auth })).body;

function expectRefusal(response: { status: number; body: unknown }, type: string, setting: string) {
  expect(response.status).toBe(403);
  expect(response.body as Problem).toMatchObject({ type: `${PROBLEMS}${type}`, status: 403, detail: expect.stringContaining(setting) });
}

async function deployAs(env: AgentEnv, who: TestUser, name: string, crons: number) {
  return call<Problem & { ok?: boolean }>(`${env.api.url}/deploy`, {
    headers: who.auth,
    json: {
      name,
      model: { providerId: 'openai-compatible', modelId: 'fake-model' },
      triggers: Array.from({ length: crons }, (_, i) => ({ kind: 'cron', expression: `${i} 3 * * *`, message: 'tick' })),
    },
  });
}

describe('keys', () => {
  test('a user holds at most KEYS_PER_USER keys, whichever key makes them; a device login is refused at approval', async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const second = await call<{ key: string }>(`${env.api.url}/key`, { headers: user.auth, json: { name: 'two' } });
    expect(second.status).toBe(201);
    const viaSecond = { authorization: `Bearer ${second.body.key}` };
    expect((await call(`${env.api.url}/key`, { headers: viaSecond, json: { name: 'three' } })).status).toBe(201);
    expectRefusal(await call(`${env.api.url}/key`, { headers: viaSecond, json: { name: 'four' } }), 'key-limit', 'KEYS_PER_USER');
    expect((await limitsOf(env, user)).keys).toEqual({ limit: 3, used: 3, setting: 'KEYS_PER_USER' });

    const code = await call<{ userCode: string }>(`${env.api.url}/device/code`, { json: { clientName: 'laptop' } });
    expectRefusal(
      await call(`${env.api.url}/device/${code.body.userCode}/approve`, { method: 'POST', headers: user.auth }),
      'key-limit',
      'KEYS_PER_USER',
    );

    // Deleting one frees a place; another user never counted.
    const { body } = await call<{ keys: { id: string; name: string }[] }>(`${env.api.url}/key`, { headers: user.auth });
    const three = body.keys.find((key) => key.name === 'three')!;
    expect((await call(`${env.api.url}/key/${three.id}`, { method: 'DELETE', headers: user.auth })).status).toBe(204);
    expect((await call(`${env.api.url}/key`, { headers: user.auth, json: { name: 'again' } })).status).toBe(201);
    const other = await createTestUser(env.api.db);
    expect((await call(`${env.api.url}/key`, { headers: other.auth, json: { name: 'theirs' } })).status).toBe(201);
  });
});

describe('schedules', () => {
  test("cron triggers across a user's agents stop at SCHEDULES_PER_USER; a redeploy counts its agent once", async ({ env }) => {
    const user = await createTestUser(env.api.db);
    expect((await deployAs(env, user, 'hourly', 1)).status).toBe(201);
    expect((await deployAs(env, user, 'daily', 1)).status).toBe(201);
    expectRefusal(await deployAs(env, user, 'weekly', 1), 'schedule-limit', 'SCHEDULES_PER_USER');
    // The same agent redeployed with its one cron trigger replaces it: still two.
    expect((await deployAs(env, user, 'daily', 1)).status).toBe(200);
    expectRefusal(await deployAs(env, user, 'daily', 2), 'schedule-limit', 'SCHEDULES_PER_USER');
    expect((await deployAs(env, user, 'weekly', 0)).status).toBe(201);
    expect((await limitsOf(env, user)).schedules).toEqual({ limit: 2, used: 2, setting: 'SCHEDULES_PER_USER' });
    expect((await call(`${env.api.url}/agent/daily`, { method: 'DELETE', headers: user.auth })).status).toBe(204);
    expect((await deployAs(env, user, 'weekly', 1)).status).toBe(200);
  });
});

describe('open approvals', () => {
  test("the API's approvals and an agent's questions count together; past the limit a question is a tool error", async ({ env }) => {
    // The file's own user: env.waitForEvents reads as it.
    const user = env.user;
    const ask = () =>
      call<Problem>(`${env.api.url}/approval`, { headers: user.auth, json: { question: 'Ship it?', expiresInMs: 600_000 } });
    expect((await ask()).status).toBe(201);
    expect((await limitsOf(env, user)).openApprovals).toEqual({ limit: 2, used: 1, setting: 'OPEN_APPROVALS_PER_USER' });

    // The agent asks twice in one step: one question fits, the other comes back to the model as an error.
    const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
      headers: user.auth,
      json: { name: 'asker', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
    });
    expect(deployed.body.ok).toBe(true);
    const session = await call<{ id: string }>(`${env.api.url}/agent/asker/session`, { headers: user.auth, json: {} });
    env.fake.enqueue({
      toolCalls: [
        { id: 'q1', name: 'ask_my_user', arguments: { question: 'Which colour?', options: ['red', 'blue'] } },
        { id: 'q2', name: 'ask_my_user', arguments: { question: 'Which size?', options: ['s', 'm'] } },
      ],
    });
    await call(`${env.api.url}/session/${session.body.id}?async=1`, {
      headers: user.auth,
      json: { parts: [{ type: 'text', text: 'order' }] },
    });
    const asked = await env.waitForEvents(session.body.id, (all) => all.some((event) => event.type === 'approval.requested'));
    expect((await limitsOf(env, user)).openApprovals.used).toBe(2);
    expectRefusal(await ask(), 'approval-limit', 'OPEN_APPROVALS_PER_USER');

    // The first question is answered; the second one's refusal is the next result the model reads.
    env.fake.enqueue({ text: 'Red it is; I will ask the size later.' });
    const { approvalId } = asked.find((event) => event.type === 'approval.requested') as unknown as { approvalId: string };
    expect((await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: user.auth, json: { choice: 'red' } })).status).toBe(200);
    const events = await env.waitForEvents(session.body.id, (all) => all.some((event) => event.type === 'turn.completed'));
    const results = events.filter((event) => event.type === 'tool.result');
    expect(results.map((event) => (event as unknown as { toolCallId: string }).toolCallId)).toEqual(['q1', 'q2']);
    expect(results[1]).toMatchObject({
      toolCallId: 'q2',
      isError: true,
      output: expect.stringMatching(/OPEN_APPROVALS_PER_USER is 2.*this question was not sent/),
    });

    const other = await createTestUser(env.api.db);
    expect((await call(`${env.api.url}/approval`, { headers: other.auth, json: { question: 'Mine?' } })).status).toBe(201);
  });
});

describe('open approvals at graph nodes', () => {
  test('an approval node past the limit fails its run, naming the setting, and opens no approval', async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
      headers: user.auth,
      json: {
        name: 'reviewer',
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        workflows: {
          review: {
            start: 'check',
            nodes: {
              check: { type: 'approval', question: 'Publish?', options: ['yes', 'no'], next: { yes: 'done', no: 'done' } },
              done: { type: 'end' },
            },
          },
        },
      },
    });
    expect(deployed.body.ok, deployed.text).toBe(true);
    const run = async () => {
      const started = await call<{ sessionId: string }>(`${env.api.url}/agent/reviewer/workflow/review`, { headers: user.auth, json: {} });
      expect(started.status).toBe(202);
      return started.body.sessionId;
    };
    // Two runs wait at their approval node: the user's two places.
    await run();
    await run();
    await vi.waitFor(async () => expect((await limitsOf(env, user)).openApprovals.used).toBe(2), { timeout: 20_000 });

    const third = await run();
    const events = await vi.waitFor(
      async () => {
        const page = await call<{ events: { type: string; error?: string; nodeId?: string }[] }>(
          `${env.api.url}/session/${third}/events?limit=1000`,
          { headers: user.auth },
        );
        if (!page.body.events.some((event) => event.type === 'workflow.failed')) throw new Error('the run has not ended');
        return page.body.events;
      },
      { timeout: 20_000 },
    );
    expect(events.find((event) => event.type === 'workflow.failed')?.error).toMatch(
      /OPEN_APPROVALS_PER_USER is 2.*approval node was not reached/,
    );
    expect(events.some((event) => event.type === 'workflow.node')).toBe(false);
    expect((await limitsOf(env, user)).openApprovals.used).toBe(2);
  });
});

describe('stored bytes', () => {
  test("uploads stop at STORED_BYTES_PER_USER across the user's sessions", async ({ env }) => {
    const user = await createTestUser(env.api.db);
    const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
      headers: user.auth,
      json: { name: 'filer', model: { providerId: 'openai-compatible', modelId: 'fake-model' } },
    });
    expect(deployed.body.ok).toBe(true);
    const sessions = await Promise.all(
      [1, 2].map(async () => (await call<{ id: string }>(`${env.api.url}/agent/filer/session`, { headers: user.auth, json: {} })).body.id),
    );
    const upload = async (sessionId: string, bytes: number) => {
      const form = new FormData();
      form.append('file', new Blob(['x'.repeat(bytes)], { type: 'text/plain' }), 'notes.txt');
      const response = await fetch(`${env.api.url}/session/${sessionId}/upload`, { method: 'POST', headers: user.auth, body: form });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    expect((await upload(sessions[0]!, 600)).status).toBe(201);
    expectRefusal(await upload(sessions[1]!, 500), 'storage-limit', 'STORED_BYTES_PER_USER');
    expect((await upload(sessions[1]!, 400)).status).toBe(201);
    expect((await limitsOf(env, user)).storedBytes).toEqual({ limit: 1000, used: 1000, setting: 'STORED_BYTES_PER_USER' });
    expectRefusal(await upload(sessions[1]!, 1), 'storage-limit', 'STORED_BYTES_PER_USER');
  });
});
