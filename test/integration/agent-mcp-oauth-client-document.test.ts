// An MCP client that names itself by its client ID metadata document (the registration the MCP
// authorization spec prefers): its client ID is the URL of a JSON document it publishes, nothing is
// registered, and the official SDK client signs in with it as with a registered one. The service fetches
// the document through the outbound guard and refuses, in the OAuth error's words, one that does not name
// itself, carries a secret, or cannot be read. (The document is served on this machine's loopback over
// http, which the service takes only there and only with OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS allowing it.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { ClientApp, REDIRECT, signIn } from '../helpers/client/mcp-oauth-app.ts';

// Documents may be read from loopback here (a setting of their own: OUTBOUND_ALLOW_CIDRS does not apply to them).
const test = agentTest({ OAUTH_CLIENT_DOCUMENT_ALLOW_CIDRS: '127.0.0.0/8' });

/** Documents by path, and how often each was read. */
const documents = new Map<string, unknown>();
const reads = new Map<string, number>();
let server: Server;
let origin = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    reads.set(path, (reads.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (document === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(typeof document === 'string' ? document : JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));

/** A client whose ID is its document's URL: it never registers. */
class DocumentClientApp extends ClientApp {
  constructor(clientId: string) {
    super();
    this.information = { client_id: clientId };
  }
  override saveClientInformation(): void {
    throw new Error('a client with a document registers nothing');
  }
}

const metadata = (clientId: string, more: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Document client',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...more,
});

/** The authorization server's answer to an authorization request naming `clientId`. */
async function authorizeAs(apiUrl: string, clientId: string, resource: string) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'S256',
    resource,
  });
  const response = await fetch(`${apiUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
  return {
    status: response.status,
    body: response.status === 400 ? ((await response.json()) as { error: string; error_description: string }) : undefined,
  };
}

describe('a client ID metadata document', () => {
  test('is the client: the official client signs in with its URL, nothing is registered, and the grant is listed by its name', async ({
    env,
  }) => {
    const metadataDoc = await call<Record<string, unknown>>(`${env.api.url}/.well-known/oauth-authorization-server`);
    expect(metadataDoc.body.client_id_metadata_document_supported).toBe(true);

    const { name } = await env.deploy();
    const mcpUrl = `${env.api.url}/agent/${name}/mcp`;
    const clientId = `${origin}/apps/desk/client.json`;
    documents.set('/apps/desk/client.json', metadata(clientId));
    const app = new DocumentClientApp(clientId);
    const client = (await signIn(env, mcpUrl, app, { clientName: 'Document client' })) as Client;
    expect(new URL(app.authorizationUrl!).searchParams.get('client_id')).toBe(clientId);
    env.fake.enqueue({ text: 'Hello from a document client.' });
    const result = (await client.callTool({ name: 'send_message', arguments: { message: 'Hi' } })) as CallToolResult;
    expect(result.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello from a document client.' })]);
    // Read once for the authorization and kept for the token exchange.
    expect(reads.get('/apps/desk/client.json')).toBe(1);
    const keys = await call<{ keys: { name: string }[] }>(`${env.api.url}/key`, { headers: env.user.auth });
    expect(keys.body.keys.map((key) => key.name)).toContain(`OAuth: Document client for ${name}`);
    await client.close();
  });

  test("is refused in the OAuth error's words when it does not name itself, carries a secret, cannot be read, or is no URL to take", async ({
    env,
  }) => {
    const { name } = await env.deploy();
    const resource = `${env.api.url}/agent/${name}/mcp`;
    const refused = async (clientId: string, why: RegExp) => {
      const answer = await authorizeAs(env.api.url, clientId, resource);
      expect(answer.status, clientId).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringMatching(why) });
    };
    documents.set('/other.json', metadata(`${origin}/someone-else.json`));
    await refused(`${origin}/other.json`, /"client_id" is not its own URL/);
    documents.set('/secret.json', metadata(`${origin}/secret.json`, { client_secret: 'shh' }));
    await refused(`${origin}/secret.json`, /must not carry a secret/);
    documents.set('/basic.json', metadata(`${origin}/basic.json`, { token_endpoint_auth_method: 'client_secret_basic' }));
    await refused(`${origin}/basic.json`, /use "none"/);
    documents.set('/broken.json', '{"client_id": ');
    await refused(`${origin}/broken.json`, /not JSON/);
    documents.set('/huge.json', metadata(`${origin}/huge.json`, { client_name: 'x'.repeat(6_000) }));
    await refused(`${origin}/huge.json`, /larger than 5120 bytes/);
    await refused(`${origin}/missing.json`, /could not be read \(it must answer 200 with the document\)/);
    documents.set('/plain.json', metadata(`${origin}/plain.json`, { redirect_uris: ['http://app.example/cb'] }));
    await refused(`${origin}/plain.json`, /plain http is allowed only to localhost/);
    await refused('http://clients.example.test/app.json', /must be an https URL/);
    await refused('https://clients.example.test/', /must have a path/);
    await refused('https://clients.example.test/a/../b.json', /segments/);
    // A private address the operator did not allow is not read, and the refusal says no more than that.
    await refused('https://10.0.0.1/app.json', /could not be read \(it must answer 200 with the document\)$/);
    // Nor read again for every request: a failure is remembered a while.
    const before = reads.get('/missing.json');
    await refused(`${origin}/missing.json`, /could not be read/);
    expect(reads.get('/missing.json')).toBe(before);
    // The token endpoint reads no document: a client starts at the authorization endpoint.
    const token = await fetch(`${env.api.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        code_verifier: 'y',
        client_id: `${origin}/never-read.json`,
      }),
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('not read here yet') });
    expect(reads.get('/never-read.json')).toBeUndefined();
  });
});
