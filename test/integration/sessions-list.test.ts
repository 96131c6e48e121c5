// Listing an agent's sessions, page by page, and sessions pinned to the revision they began with.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest();

const bundle = (name: string, instructions: string) => ({
  name,
  model: { providerId: 'openai-compatible', modelId: 'fake-model' },
  instructions,
});

test('sessions are listed newest first, page by page, with no session twice or missing', async ({ env }) => {
  const { name } = await env.deploy();
  const created: string[] = [];
  for (let i = 0; i < 5; i++) {
    created.push((await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id);
  }
  const seen: string[] = [];
  let before: string | null = null;
  let pages = 0;
  do {
    const query: string = before ? `?limit=2&before=${before}` : '?limit=2';
    const page: { body: { sessions: { id: string; revision: number; status: string }[]; next: string | null } } = await call(
      `${env.api.url}/agent/${name}/sessions${query}`,
      { headers: env.user.auth },
    );
    seen.push(...page.body.sessions.map((session) => session.id));
    before = page.body.next;
    pages++;
  } while (before && pages < 10);
  expect(pages).toBe(3);
  expect(seen).toEqual([...created].reverse());

  const other = await createTestUser(env.api.db);
  expect((await call(`${env.api.url}/agent/${name}/sessions`, { headers: other.auth })).status).toBe(404);
  expect((await call(`${env.api.url}/agent/${name}/sessions?limit=0`, { headers: env.user.auth })).status).toBe(400);
});

test('a session keeps the revision it began with; a new one takes the current revision', async ({ env }) => {
  const { name } = await env.deploy({ instructions: 'First instructions.' });
  const first = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const redeployed = await call<{ revision: number }>(`${env.api.url}/deploy`, {
    headers: env.user.auth,
    json: bundle(name, 'Second instructions.'),
  });
  expect(redeployed.body.revision).toBe(2);
  const second = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;

  const systemOf = async (sessionId: string) => {
    const before = env.fake.requests.length;
    await call(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'hi' }] } });
    return env.fake.requests[before]!.body.messages.find((message) => message.role === 'system')?.content;
  };
  expect(await systemOf(first)).toBe('First instructions.');
  expect(await systemOf(second)).toBe('Second instructions.');
  const read = await call<{ revision: number }>(`${env.api.url}/session/${first}`, { headers: env.user.auth });
  expect(read.body.revision).toBe(1);
});

test("a deleted agent's sessions stay readable but take no send, revert or fork (410); another user's is 403, an unknown one 404", async ({
  env,
}) => {
  const { name } = await env.deploy();
  const sessionId = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;
  const send = { parts: [{ type: 'text', text: 'hello' }] };
  const other = await createTestUser(env.api.db);
  expect((await call(`${env.api.url}/session/${sessionId}?async=1`, { headers: other.auth, json: send })).status).toBe(403);
  expect((await call(`${env.api.url}/session/ses_unknown?async=1`, { headers: env.user.auth, json: send })).status).toBe(404);

  expect((await call(`${env.api.url}/agent/${name}`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
  expect((await call(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth })).status).toBe(200);
  const refused = await call<{ detail: string }>(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: send });
  expect(refused.status).toBe(410);
  expect(refused.body.detail).toMatch(/agent of this session was deleted/);
  const revert = { messageId: 'msg_any' };
  expect((await call(`${env.api.url}/session/${sessionId}/revert`, { headers: env.user.auth, json: revert })).status).toBe(410);
  expect((await call(`${env.api.url}/session/${sessionId}/fork`, { headers: env.user.auth, json: {} })).status).toBe(410);
});
