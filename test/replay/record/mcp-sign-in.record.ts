// Records a session whose turn waits for its user to sign in to an MCP server (workflows/connect-wait.ts):
// the call finds no sign-in, the turn asks (a connect approval child), the user signs in through the
// question's link, and the call runs again. The server's tokens are the recorder's secrets: none may be
// in the history. The history closes when its idle session ends.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAgentEnv, type AgentEnv } from '../../helpers/harness/agent-env.ts';
import { call } from '../../helpers/client/request.ts';
import { CLICK_HEADERS, openLink } from '../../helpers/client/browser-headers.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../helpers/fakes/oauth-mcp-server.ts';
import { sessionWorkflowId } from '../../../lib/workflow-safe/workflow-ids.ts';
import { recorder } from './recorder.ts';
import { RECORDING_ENV } from './recording-env.ts';

let env: AgentEnv;
let server: OAuthMcpServer;
beforeAll(async () => {
  env = await startAgentEnv({ ...RECORDING_ENV, SESSION_IDLE_MS: '1000', OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await env?.close();
  await server?.close();
});

/** The browser's part of a sign-in, from a URL leading to the authorization server back to the service. */
async function consentAndReturn(url: string): Promise<void> {
  const consent = await fetch(url, { redirect: 'manual' });
  expect((await openLink(consent.headers.get('location')!, CLICK_HEADERS)).status).toBe(200);
}

test('sessionWorkflow: a tool call waits for its user to sign in to the MCP server, then runs', async () => {
  const record = recorder(env.worker.client, [env.user.apiKey]);
  if (!record.wanted('sessionWorkflow', 'mcp-sign-in-waited-idle-ended')) return;
  await call(`${env.api.url}/mcp/desk`, { method: 'PUT', headers: env.user.auth, json: { url: server.url, auth: { type: 'oauth' } } });
  const started = await call<{ authorizationUrl: string }>(`${env.api.url}/mcp/desk/connect`, { method: 'POST', headers: env.user.auth });
  await consentAndReturn(started.body.authorizationUrl);
  const sessionId = await env.newSession({ mcps: ['desk'] });
  await call(`${env.api.url}/mcp/desk/connection`, { method: 'DELETE', headers: env.user.auth });

  env.fake.enqueue({ toolCalls: [{ id: 'call_desk', name: 'whoami', arguments: {} }] }, { text: 'Found you.' });
  const waiting = await call<{ status: string; waitingFor: { url: string } }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'who am I?' }] },
  });
  expect(waiting.body).toMatchObject({ status: 'waiting', waitingFor: { kind: 'connect' } });
  const clicked = await openLink(waiting.body.waitingFor.url, CLICK_HEADERS);
  await consentAndReturn(clicked.location!);
  await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
  const tokens = recorder(env.worker.client, [env.user.apiKey, ...server.accessTokens()]);
  await tokens.closed(sessionWorkflowId(sessionId), 'sessionWorkflow', 'mcp-sign-in-waited-idle-ended');
});
