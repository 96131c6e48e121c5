// A turn that waits for its user to sign in to an MCP server, and nobody does: when the question expires the
// call ends with a tool error the model reads, the tool never runs, and the turn completes. Its own file: the
// short default expiry would end every other test's questions too.
import { afterAll, beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { connectMcp } from '../helpers/harness/mcp-sign-in.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', APPROVAL_DEFAULT_EXPIRY_MS: '2000' });

let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
});

test('a sign-in question nobody answers expires: the model reads that the call did not run, and the turn completes', async ({ env }) => {
  await call(`${env.api.url}/mcp/desk`, { method: 'PUT', headers: env.user.auth, json: { url: server.url, auth: { type: 'oauth' } } });
  server.signInAs('person-e');
  await connectMcp(env, 'desk');
  const sessionId = await env.newSession({ mcps: ['desk'] });
  // Signed out after the deploy: the call finds no sign-in and asks for one.
  expect((await call(`${env.api.url}/mcp/desk/connection`, { method: 'DELETE', headers: env.user.auth })).status).toBe(200);

  env.fake.enqueue({ toolCalls: [{ id: 'c-desk', name: 'whoami', arguments: {} }] }, { text: 'Nobody signed in.' });
  const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'look me up' }] },
  });
  expect(sent.status).toBe(202);
  const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'), 30_000);
  const asked = events.find((event) => event.type === 'approval.requested');
  expect(asked).toMatchObject({ connect: { serverId: 'desk' } });
  expect(events.find((event) => event.type === 'approval.expired')).toMatchObject({
    approvalId: (asked as { approvalId: string }).approvalId,
  });
  expect(events.filter((event) => event.type === 'tool.result')).toEqual([
    expect.objectContaining({
      toolName: 'whoami',
      isError: true,
      output: expect.stringMatching(/did not sign in to the MCP server "desk" before the question expired; the call did not run/),
    }),
  ]);
  expect(server.calls.filter((entry) => entry.subject === 'person-e')).toHaveLength(0);
  // The model was told, and its reply ends the turn.
  expect(events.find((event) => event.type === 'turn.completed')).toBeDefined();
  const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
  expect(session.body.status).toBe('idle');
});
