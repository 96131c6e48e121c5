// GET /session links the session's workflows in the Temporal Web UI when the service knows where the
// UI is (TEMPORAL_UI_URL; npm start sets it to its dev server's UI), and says nothing otherwise.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startTestApi } from '../helpers/harness/api.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest({ TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' });

test("GET /session links the Web UI's search for the session's workflows; an API without TEMPORAL_UI_URL does not", async ({ env }) => {
  const sessionId = await env.newSession();
  const session = await call<{ workflowsUrl?: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
  expect(session.body.workflowsUrl).toBe(
    `https://temporal.example.com/ui/namespaces/default/workflows?query=${encodeURIComponent(`SessionId="${sessionId}"`)}`,
  );

  const { TEMPORAL_UI_URL: _ui, ...withoutUi } = env.env;
  const api = await startTestApi(withoutUi);
  try {
    const plain = await call<Record<string, unknown>>(`${api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('workflowsUrl');
  } finally {
    await api.close();
  }
});
