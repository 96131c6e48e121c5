// Signing in to an agent's MCP URL the MCP way, with the official MCP SDK's client and its OAuth flow:
// the 401 names the protected-resource metadata, the client discovers the authorization server,
// registers itself (RFC 7591), sends its user to authorize with PKCE; the user allows it on the consent
// API (as the dashboard's page does, signed in with their key); the client exchanges the code, calls
// tools, and refreshes its token once it expires. The grant is a key of the user: listed, and deleted
// with a 401 at once. A grant is bound to the MCP URL it was asked for, and a `read` one starts no turn.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { ClientApp, signIn } from '../helpers/client/mcp-oauth-app.ts';

// Access tokens that expire within the test, so the client's refresh is exercised.
const test = agentTest({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: '2' });

/** A bare tools/list at `url` with `accessToken`: what a grant may and may not reach. */
const listToolsWith = (url: string, accessToken: string) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

const textOf = (result: CallToolResult) => result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe('OAuth for an agent’s MCP URL', () => {
  test('discovery, registration, PKCE and consent; a call; a refresh after expiry; the grant listed and revoked', async ({ env }) => {
    const { name } = await env.deploy();
    const mcpUrl = `${env.api.url}/agent/${name}/mcp`;

    // What the client finds first: a 401 naming the protected-resource metadata, which names this server.
    const refused = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${env.api.url}/.well-known/oauth-protected-resource/agent/${name}/mcp"`,
    );
    const resource = await call<{ resource: string; authorization_servers: string[] }>(
      `${env.api.url}/.well-known/oauth-protected-resource/agent/${name}/mcp`,
    );
    expect(resource.body).toMatchObject({ resource: mcpUrl, authorization_servers: [env.api.url] });

    const app = new ClientApp();
    const client = (await signIn(env, mcpUrl, app)) as Client;
    expect(app.saved).toMatchObject({ token_type: 'bearer', scope: 'read sessions:write', refresh_token: expect.stringMatching(/^rt_/) });

    env.fake.enqueue({ text: 'Signed in and answering.' });
    const first = (await client.callTool({ name: 'send_message', arguments: { message: 'Hi' } })) as CallToolResult;
    expect(textOf(first)).toBe('Signed in and answering.');

    // The access token expires; the client refreshes (a new refresh token: the old one is spent) and goes on.
    const before = app.saved!;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    env.fake.enqueue({ text: 'Still here after a refresh.' });
    const second = (await client.callTool({ name: 'send_message', arguments: { message: 'Again' } })) as CallToolResult;
    expect(textOf(second)).toBe('Still here after a refresh.');
    expect(app.saved!.access_token).not.toBe(before.access_token);
    expect(app.saved!.refresh_token).not.toBe(before.refresh_token);

    // The grant is a key of the user, bound to this agent's MCP URL: no credential anywhere else.
    const keys = await call<{ keys: { id: string; name: string }[] }>(`${env.api.url}/key`, { headers: env.user.auth });
    const grant = keys.body.keys.find((key) => key.name === `OAuth: Test MCP client for ${name}`)!;
    expect(grant).toBeDefined();
    const bearer = { authorization: `Bearer ${app.saved!.access_token}` };
    const elsewhere = await call(`${env.api.url}/agent/${name}`, { headers: bearer });
    expect(elsewhere.status).toBe(401);
    const { name: other } = await env.deploy();
    expect((await listToolsWith(`${env.api.url}/agent/${other}/mcp`, app.saved!.access_token)).status).toBe(401);
    // The same URL spelled with a trailing slash is the same resource.
    expect((await listToolsWith(`${mcpUrl}/`, app.saved!.access_token)).status).toBe(200);

    // The rotated refresh token presented again (a copy someone else may hold): the grant ends at once.
    const reused = await fetch(`${env.api.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.refresh_token!,
        client_id: app.information!.client_id,
      }),
    });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    const after = await listToolsWith(mcpUrl, app.saved!.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const left = await call<{ keys: { id: string }[] }>(`${env.api.url}/key`, { headers: env.user.auth });
    expect(left.body.keys.map((key) => key.id)).not.toContain(grant.id);
    await client.close();
  });

  test('a grant holds no more than the approving key: a read one starts no turn; revocation ends it; a denial gives no code', async ({
    env,
  }) => {
    const { name } = await env.deploy();
    const mcpUrl = `${env.api.url}/agent/${name}/mcp`;
    const narrowed = await call<{ key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { name: 'reader', scopes: ['read', 'keys:write'] },
    });
    const reader = new ClientApp();
    const client = (await signIn(env, mcpUrl, reader, { approver: { authorization: `Bearer ${narrowed.body.key}` } })) as Client;
    expect(reader.saved!.scope).toBe('read');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['get_session', 'list_sessions']);
    const refused = (await client.callTool({ name: 'send_message', arguments: { message: 'Hi' } })) as CallToolResult;
    expect(refused.isError).toBe(true);

    const revoked = await fetch(`${env.api.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: reader.saved!.refresh_token!, client_id: reader.information!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const after = await listToolsWith(mcpUrl, reader.saved!.access_token);
    expect(after.status).toBe(401);
    await client.close();

    // Deleting a grant among the keys ends it at once.
    const full = new ClientApp();
    const second = (await signIn(env, mcpUrl, full)) as Client;
    const keys = await call<{ keys: { id: string; name: string }[] }>(`${env.api.url}/key`, { headers: env.user.auth });
    const grant = keys.body.keys.find((key) => key.name === `OAuth: Test MCP client for ${name}`)!;
    expect((await call(`${env.api.url}/key/${grant.id}`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    expect((await listToolsWith(mcpUrl, full.saved!.access_token)).status).toBe(401);
    await second.close();

    expect(await signIn(env, mcpUrl, new ClientApp(), { allow: false })).toBe('access_denied');
  });

  test("the protocol's refusals: no open redirect, bounded registrations, a confidential client's secret, codes spent once", async ({
    env,
  }) => {
    const { name } = await env.deploy();
    const mcpUrl = `${env.api.url}/agent/${name}/mcp`;
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const register = (metadata: Record<string, unknown>) =>
      call<{ client_id: string; client_secret?: string; client_secret_expires_at?: number; error?: string }>(
        `${env.api.url}/oauth/register`,
        {
          json: metadata,
        },
      );

    // Registration: plain http only to loopback; a few redirect URIs; a confidential client gets a secret that never expires.
    expect((await register({ client_name: 'x', redirect_uris: ['http://evil.example/cb'] })).body.error).toBe('invalid_client_metadata');
    const many = Array.from({ length: 11 }, (_, index) => `https://app.example/cb${index}`);
    expect((await register({ client_name: 'x', redirect_uris: many })).body.error).toBe('invalid_client_metadata');
    const confidential = await register({
      client_name: 'Server app',
      redirect_uris: ['https://app.example/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(confidential.status).toBe(201);
    expect(confidential.body).toMatchObject({ client_secret: expect.any(String), client_secret_expires_at: 0 });
    const { client_id: clientId, client_secret: secret } = confidential.body;

    // An authorization request this service refuses is answered here, never redirected to the registered URI.
    const verifier = randomBytes(32).toString('base64url');
    const asked = (extra: Record<string, string>) => {
      const url = new URL(`${env.api.url}/oauth/authorize`);
      const fields = {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'https://app.example/cb',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource: mcpUrl,
        state: 's1',
        ...extra,
      };
      for (const [key, value] of Object.entries(fields)) if (value !== '') url.searchParams.set(key, value);
      return fetch(url, { redirect: 'manual' });
    };
    for (const [extra, error] of [
      [{ resource: '' }, 'invalid_target'],
      [{ resource: `${env.api.url}/agent/${name}` }, 'invalid_target'],
      [{ resource: `https://elsewhere.example/agent/${name}/mcp` }, 'invalid_target'],
      [{ scope: 'read keys:write' }, 'invalid_scope'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
    ] as const) {
      const refused = await asked(extra);
      expect(refused.status, JSON.stringify(extra)).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe(error);
    }

    // A client asking for an agent the user does not have is refused at the decision.
    const nowhere = new URL((await asked({ resource: `${env.api.url}/agent/no-such-agent/mcp` })).headers.get('location')!);
    const refusedDecision = await call(`${env.api.url}/oauth/authorization/${nowhere.searchParams.get('request')}`, {
      headers: env.user.auth,
      json: { allow: true },
    });
    expect(refusedDecision.status).toBe(404);

    // Allowed: the code is exchanged with the client's secret, once; not by another client, not twice.
    const consent = new URL((await asked({})).headers.get('location')!);
    const decided = await call<{ redirectUrl: string }>(`${env.api.url}/oauth/authorization/${consent.searchParams.get('request')}`, {
      headers: env.user.auth,
      json: { allow: true },
    });
    const code = new URL(decided.body.redirectUrl).searchParams.get('code')!;
    const exchange = (fields: Record<string, string>) =>
      fetch(
        `${env.api.url}/oauth/token`,
        form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: 'https://app.example/cb', ...fields }),
      );
    const other = await register({ client_name: 'Other', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' });
    expect(((await (await exchange({ client_id: other.body.client_id })).json()) as { error: string }).error).toBe('invalid_grant');
    expect((await exchange({ client_id: clientId, client_secret: 'wrong' })).status).toBeGreaterThanOrEqual(400);
    const granted = await exchange({ client_id: clientId, client_secret: secret! });
    expect(granted.status).toBe(200);
    const tokens = (await granted.json()) as { access_token: string; token_type: string; scope: string };
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'read sessions:write' });
    expect((await listToolsWith(mcpUrl, tokens.access_token)).status).toBe(200);
    // The code again: refused, and the grant it made ends (whoever replays it may not be the client).
    const replayed = await exchange({ client_id: clientId, client_secret: secret! });
    expect(await replayed.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    expect((await listToolsWith(mcpUrl, tokens.access_token)).status).toBe(401);
  });
});
