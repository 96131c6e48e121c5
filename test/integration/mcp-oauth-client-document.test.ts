// The way the MCP authorization spec prefers a client to identify itself: a client ID metadata document.
// Where the authorization server takes such documents and the service is reached over https
// (PUBLIC_BASE_URL), the service's document URL is its client ID and nothing is registered. The service
// here answers on http, so the fake authorization server (the SDK's router) fetches the document there.
import { afterAll, beforeAll, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { CLICK_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';

const PUBLIC = 'https://agents.example.test';
const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', PUBLIC_BASE_URL: PUBLIC });

let server: OAuthMcpServer;
let apiUrl = '';
const local = (url: string) => url.replace(PUBLIC, apiUrl);
beforeAll(async () => {
  server = await startOAuthMcpServer({ clientIdDocuments: { fetchableAt: local } });
});
afterAll(async () => {
  await server?.close();
});

test('the document is the client: no registration, a public client, and the tokens work', async ({ env }) => {
  apiUrl = env.api.url;
  const document = await call<Record<string, unknown>>(`${env.api.url}/mcp-oauth/client.json`);
  expect(document.body).toMatchObject({
    client_id: `${PUBLIC}/mcp-oauth/client.json`,
    redirect_uris: [`${PUBLIC}/mcp-oauth/callback`],
    token_endpoint_auth_method: 'none',
  });

  await call(`${env.api.url}/mcp/docs-server`, {
    method: 'PUT',
    headers: env.user.auth,
    json: { url: server.url, auth: { type: 'oauth' } },
  });
  const started = await call<{ authorizationUrl: string }>(`${env.api.url}/mcp/docs-server/connect`, {
    method: 'POST',
    headers: env.user.auth,
  });
  expect(started.status, started.text).toBe(200);
  expect(new URL(started.body.authorizationUrl).searchParams.get('client_id')).toBe(`${PUBLIC}/mcp-oauth/client.json`);
  server.signInAs('person-doc');
  const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const landed = await openLink(local(consent.headers.get('location')!), CLICK_HEADERS);
  expect(landed.text).toContain('Connected to');
  expect(server.registered).toEqual([]);
  expect(server.documentsFetched).toContain(`${PUBLIC}/mcp-oauth/client.json`);

  const sessionId = await env.newSession({ mcps: ['docs-server'] });
  env.fake.enqueue({ toolCalls: [{ id: 'c-doc', name: 'whoami', arguments: {} }] }, { text: 'ok' });
  await call(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth, json: { parts: [{ type: 'text', text: 'go' }] } });
  const events = await env.events(sessionId);
  expect(events.find((event) => event.type === 'tool.result')).toMatchObject({ output: 'signed in as person-doc' });
});
