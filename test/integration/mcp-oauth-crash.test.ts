// A worker SIGKILLed while it refreshes a user's tokens for an MCP server: the refresh's row lock dies
// with its connection, a live worker runs the call again, and the turn ends with one result. Whether
// the authorization server had rotated the refresh token before the worker died decides what the next
// refresh finds: a token refreshed again, or a refusal, after which the turn asks its user to sign in
// once more and goes on when they have. Either way nothing is lost and nothing runs twice.
import { afterAll, beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startWorkerProcess, workersKilledAfterAll } from '../helpers/harness/worker-process.ts';
import { call } from '../helpers/client/request.ts';
import { CLICK_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { connectMcp, consentAndReturn } from '../helpers/harness/mcp-sign-in.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, { inProcessWorker: false });
const workers = workersKilledAfterAll();

let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
});

const count = (events: SessionEvent[], type: SessionEvent['type']) => events.filter((event) => event.type === type).length;

test('a worker SIGKILLed during a refresh: the call runs once, after a refresh or a new sign-in', { timeout: 180_000 }, async ({ env }) => {
  const dying = await startWorkerProcess(env.env);
  workers.push(dying);
  await call(`${env.api.url}/mcp/desk`, { method: 'PUT', headers: env.user.auth, json: { url: server.url, auth: { type: 'oauth' } } });
  server.signInAs('person-k');
  await connectMcp(env, 'desk');
  const sessionId = await env.newSession({ mcps: ['desk'] });

  // The token stops working, and the refresh it brings takes long enough to kill its worker in the middle.
  server.expireAccessTokens();
  server.delayRefresh(4000);
  const refreshesBefore = server.tokenRequests.length;
  env.fake.enqueue({ toolCalls: [{ id: 'c-desk', name: 'whoami', arguments: {} }] }, { text: 'ok' });
  await call(`${env.api.url}/session/${sessionId}?async=1`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'go' }] } });
  for (let waited = 0; server.tokenRequests.length === refreshesBefore && waited < 60_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(server.tokenRequests.at(-1)).toBe('refresh_token');
  await dying.kill('SIGKILL');
  server.delayRefresh(0);
  workers.push(await startWorkerProcess(env.env));

  // Either the next refresh works, or the spent refresh token is refused and the turn asks for a sign-in.
  const settled = await env.waitForEvents(
    sessionId,
    (all) => count(all, 'turn.completed') === 1 || all.some((event) => event.type === 'approval.requested' && event.connect),
    120_000,
  );
  if (count(settled, 'turn.completed') === 0) {
    const asked = settled.find((event) => event.type === 'approval.requested')!;
    const approval = await call<{ links: { page: string } }>(`${env.api.url}/approval/${(asked as { approvalId: string }).approvalId}`, {
      headers: env.user.auth,
    });
    const clicked = await openLink(approval.body.links.page, CLICK_HEADERS);
    expect(clicked.status).toBe(303);
    await consentAndReturn(clicked.location!);
  }
  const events = await env.waitForEvents(sessionId, (all) => count(all, 'turn.completed') === 1, 120_000);
  const results = events.filter((event) => event.type === 'tool.result');
  expect(results).toHaveLength(1);
  expect(results[0]).toMatchObject({ toolName: 'whoami', output: 'signed in as person-k' });
  expect(server.calls.filter((called) => called.subject === 'person-k')).toHaveLength(1);
});
