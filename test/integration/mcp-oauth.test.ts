// Remote MCP servers that sign in with OAuth: each user connects once (POST /mcp/<id>/connect, the
// authorization server's consent, the callback), and the service sends and refreshes their tokens. The
// server side is the official SDK's auth router and bearer middleware (test/helpers/fakes/oauth-mcp-server.ts);
// hostile authorization servers are small express apps here.
import express from 'express';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, onTestFinished } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { registerMcp, sendAndWait, toolResults } from '../helpers/harness/mcp-agent.ts';
import { call } from '../helpers/client/request.ts';
import { CLICK_HEADERS, SCANNER_HEADERS, openLink } from '../helpers/client/browser-headers.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import { startWebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { refreshRunningOut } from '../../api/mcp-oauth/refresh-ahead.ts';
import { createLogger } from '../../lib/logger.ts';
import { loadMasterKeys } from '../../lib/master-key.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { decodedHistory } from '../helpers/harness/decoded-history.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await server?.close();
});

interface Connection {
  status: string;
  scopes: string[];
  expiresAt: string | null;
  refreshedAt: string | null;
  reason: string | null;
}

async function connectionOf(env: AgentEnv, user: TestUser, id: string): Promise<Connection | null> {
  const listed = await call<{ id: string; connection?: Connection | null }[]>(`${env.api.url}/mcps`, { headers: user.auth });
  return listed.body.find((entry) => entry.id === id)?.connection ?? null;
}

/** POST /mcp/<id>/connect, then the authorization server's consent: the callback URL the browser is sent to. */
async function startSignIn(env: AgentEnv, user: TestUser, id: string): Promise<{ authorizationUrl: URL; callback: URL }> {
  const started = await call<{ authorizationUrl: string; redirectUri: string }>(`${env.api.url}/mcp/${id}/connect`, {
    method: 'POST',
    headers: user.auth,
  });
  expect(started.status, started.text).toBe(200);
  const authorizationUrl = new URL(started.body.authorizationUrl);
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  return { authorizationUrl, callback: new URL(consent.headers.get('location')!) };
}

/** The whole sign-in, as a person's browser arrives at the callback. */
async function signIn(env: AgentEnv, user: TestUser, id: string): Promise<void> {
  const { callback } = await startSignIn(env, user, id);
  const landed = await openLink(callback.href, CLICK_HEADERS);
  expect(landed.text).toContain('Connected to');
  expect(landed.status).toBe(200);
}

const signInsUnderWay = async (env: AgentEnv, id: string): Promise<number> =>
  (
    await env.api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM mcp_connect_states WHERE user_id = $1 AND server_id = $2', [
      env.user.userId,
      id,
    ])
  ).rows[0]!.n;

const whoamiTurn = async (env: AgentEnv, sessionId: string) => {
  // A turn left waiting (on a sign-in) by a test before leaves its reply queued.
  env.fake.reset();
  env.fake.enqueue({ toolCalls: [{ id: `c-${crypto.randomUUID()}`, name: 'whoami', arguments: {} }] }, { text: 'ok' });
  expect((await sendAndWait(env, sessionId, 'who am I there?')).body).toMatchObject({ status: 'completed' });
  return toolResults(await env.events(sessionId)).at(-1)!;
};

/** A session of a new agent naming `id` in `mcps`, deployed by the environment's user. */
const sessionWith = (env: AgentEnv, id: string) => env.newSession({ mcps: [id] });

describe('signing in', () => {
  test('discovery, registration, PKCE and the resource; a scanner spends nothing; the first call carries the token', async ({ env }) => {
    await registerMcp(env, 'tickets', { url: server.url, auth: { type: 'oauth' } });
    expect(await connectionOf(env, env.user, 'tickets')).toMatchObject({ status: 'not-connected' });
    // Not signed in: a deploy naming it is refused at its pointer, saying how to connect.
    const refused = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: `oauth-${crypto.randomUUID().slice(0, 8)}`,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['tickets'],
      },
    });
    expect(refused.body.errors).toEqual([
      { path: '/mcps/0', message: expect.stringMatching(/needs its user to sign in.*POST \/mcp\/tickets\/connect/) },
    ]);

    server.signInAs('person-a');
    const { authorizationUrl, callback } = await startSignIn(env, env.user, 'tickets');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(server.url);
    expect(authorizationUrl.searchParams.get('scope')).toBe('tickets:read');
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${env.api.url}/mcp-oauth/callback`);
    expect(server.registered.at(-1)).toMatchObject({ redirect_uris: [`${env.api.url}/mcp-oauth/callback`] });

    // A link preview or a scanner fetching the callback gets a button; nothing is exchanged or stored.
    const scanned = await openLink(callback.href, SCANNER_HEADERS);
    expect(scanned.status).toBe(200);
    expect(scanned.text).toContain('Finish connecting');
    expect(await connectionOf(env, env.user, 'tickets')).toMatchObject({ status: 'not-connected' });
    expect(server.tokenRequests).not.toContain('authorization_code');

    // The button finishes it.
    const pressed = await call(`${env.api.url}/mcp-oauth/callback`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')! }).toString(),
    });
    expect(pressed.status, pressed.text).toBe(200);
    expect(pressed.text).toContain('Connected to “tickets”');
    expect(await connectionOf(env, env.user, 'tickets')).toMatchObject({
      status: 'connected',
      scopes: ['tickets:read'],
      expiresAt: expect.any(String),
    });

    // The same state again: taken already, so nothing happens.
    const replayed = await call(`${env.api.url}/mcp-oauth/callback`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: new URLSearchParams({ code: callback.searchParams.get('code')!, state: callback.searchParams.get('state')! }).toString(),
    });
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('used already');

    const sessionId = await sessionWith(env, 'tickets');
    expect(await whoamiTurn(env, sessionId)).toMatchObject({ toolName: 'whoami', output: 'signed in as person-a' });
    // No token anywhere a person, a log reader or an operator looks: events, listings, the API's log, Temporal history.
    const tokens = server.accessTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const history = await decodedHistory(await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory());
    const everything = [
      await env.events(sessionId),
      (await call(`${env.api.url}/mcps`, { headers: env.user.auth })).body,
      env.api.logs,
      history,
    ]
      .map((part) => JSON.stringify(part))
      .join('\n');
    for (const token of tokens) expect(everything).not.toContain(token);
    expect(everything).not.toMatch(/rt-[0-9a-f-]{36}/);
  });

  test('two users of one server each call it with their own sign-in', async ({ env }) => {
    const other = await createTestUser(env.api.db);
    for (const [user, person] of [
      [env.user, 'person-a'],
      [other, 'person-b'],
    ] as const) {
      await call(`${env.api.url}/mcp/shared`, { method: 'PUT', headers: user.auth, json: { url: server.url, auth: { type: 'oauth' } } });
      server.signInAs(person);
      await signIn(env, user, 'shared');
    }
    const mine = await sessionWith(env, 'shared');
    expect(await whoamiTurn(env, mine)).toMatchObject({ output: 'signed in as person-a' });
    // The other user's agent, deployed by them, calls with theirs.
    const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
      headers: other.auth,
      json: { name: 'theirs', model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['shared'] },
    });
    expect(deployed.body.ok).toBe(true);
    const theirs = await call<{ id: string }>(`${env.api.url}/agent/theirs/session`, { headers: other.auth, json: {} });
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-theirs', name: 'whoami', arguments: {} }] }, { text: 'ok' });
    await call(`${env.api.url}/session/${theirs.body.id}`, { headers: other.auth, json: { parts: [{ type: 'text', text: 'go' }] } });
    const events = await call<{ events: { type: string; output?: unknown }[] }>(`${env.api.url}/session/${theirs.body.id}/events`, {
      headers: other.auth,
    });
    expect(events.body.events.find((event) => event.type === 'tool.result')).toMatchObject({ output: 'signed in as person-b' });
  });

  test('the authorization server saying no stores nothing; an unknown state stores nothing', async ({ env }) => {
    await registerMcp(env, 'refusing', { url: server.url, auth: { type: 'oauth' } });
    server.denyNext();
    const { callback } = await startSignIn(env, env.user, 'refusing');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const landed = await openLink(callback.href, CLICK_HEADERS);
    expect(landed.status).toBe(400);
    expect(landed.text).toContain('The person said no');
    expect(await connectionOf(env, env.user, 'refusing')).toMatchObject({ status: 'not-connected' });

    // An answer naming another issuer (RFC 9207) may be another server's code: not exchanged, nothing stored.
    const mixedUp = (await startSignIn(env, env.user, 'refusing')).callback;
    mixedUp.searchParams.set('iss', 'https://elsewhere.example');
    const refusedMixUp = await openLink(mixedUp.href, CLICK_HEADERS);
    expect(refusedMixUp.status).toBe(400);
    expect(refusedMixUp.text).toContain('another issuer');
    expect(await connectionOf(env, env.user, 'refusing')).toMatchObject({ status: 'not-connected' });

    const unknown = await openLink(`${env.api.url}/mcp-oauth/callback?code=x&state=not-a-state`, CLICK_HEADERS);
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('used already, or it is too old');
  });

  test("a server behind a gateway: its registered headers go with the discovery's probe as with every call", async ({ env }) => {
    const gated = await startOAuthMcpServer({ gatewayKey: 'gw-key-0123456789' });
    onTestFinished(() => gated.close());
    await call(`${env.api.url}/secret/GATEWAY_KEY`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { value: 'gw-key-0123456789', hosts: ['127.0.0.1'] },
    });
    await registerMcp(env, 'gated', { url: gated.url, headers: { 'X-Gateway-Key': '{{secrets.GATEWAY_KEY}}' }, auth: { type: 'oauth' } });
    gated.signInAs('person-g');
    await signIn(env, env.user, 'gated');
    expect(gated.refusedByGateway()).toBe(0);
    expect(await whoamiTurn(env, await sessionWith(env, 'gated'))).toMatchObject({ output: 'signed in as person-g' });
    expect(gated.refusedByGateway()).toBe(0);
  });

  test('a server without auth cannot be connected; a server of nobody is 404', async ({ env }) => {
    await registerMcp(env, 'plain', { url: server.url });
    expect((await call(`${env.api.url}/mcp/plain/connect`, { method: 'POST', headers: env.user.auth })).status).toBe(409);
    expect((await call(`${env.api.url}/mcp/nobody/connect`, { method: 'POST', headers: env.user.auth })).status).toBe(404);
    expect((await registerMcp(env, 'bad-auth', { url: server.url, auth: { type: 'oauth', clientSecret: 'plain-value' } })).status).toBe(
      400,
    );
  });
});

describe('tokens over time', () => {
  test('a refused access token is refreshed once and the call goes on; a revoked grant asks for a new sign-in', async ({ env }) => {
    await registerMcp(env, 'refreshing', { url: server.url, auth: { type: 'oauth' } });
    server.signInAs('person-r');
    await signIn(env, env.user, 'refreshing');
    const sessionId = await sessionWith(env, 'refreshing');

    server.expireAccessTokens();
    const refreshesBefore = server.tokenRequests.filter((grant) => grant === 'refresh_token').length;
    expect(await whoamiTurn(env, sessionId)).toMatchObject({ output: 'signed in as person-r' });
    expect(server.tokenRequests.filter((grant) => grant === 'refresh_token').length).toBe(refreshesBefore + 1);
    expect(await connectionOf(env, env.user, 'refreshing')).toMatchObject({ status: 'connected' });

    // The user revokes the grant at the server: the next refresh is refused for good, and the turn asks them to sign in again.
    server.revokeGrantsOf('person-r');
    server.expireAccessTokens();
    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-revoked', name: 'whoami', arguments: {} }] }, { text: 'ok' });
    expect((await sendAndWait(env, sessionId, 'again')).body).toMatchObject({
      status: 'waiting',
      waitingFor: { kind: 'connect', server: 'refreshing' },
    });
    expect(await connectionOf(env, env.user, 'refreshing')).toMatchObject({
      status: 'needs-sign-in',
      reason: expect.stringMatching(/refused to refresh its sign-in \(invalid_grant\)/),
    });
  });

  test('a token about to run out is refreshed before it is sent', async ({ env }) => {
    const brief = await startOAuthMcpServer({ accessTokenTtlSeconds: 30 });
    onTestFinished(() => brief.close());
    await registerMcp(env, 'brief', { url: brief.url, auth: { type: 'oauth' } });
    brief.signInAs('person-brief');
    await signIn(env, env.user, 'brief');
    const sessionId = await sessionWith(env, 'brief');
    // The deploy's listing refreshed it (30 s is inside the minute ahead); the call refreshes again.
    expect(await whoamiTurn(env, sessionId)).toMatchObject({ output: 'signed in as person-brief' });
    expect(brief.tokenRequests).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
  });

  test('the housekeeping pass refreshes sign-ins running out before its next pass, and marks a refused one', async ({ env }) => {
    const soon = await startOAuthMcpServer({ accessTokenTtlSeconds: 120 });
    onTestFinished(() => soon.close());
    await registerMcp(env, 'soon', { url: soon.url, auth: { type: 'oauth' } });
    soon.signInAs('person-soon');
    await signIn(env, env.user, 'soon');
    const deps = {
      db: env.api.db,
      config: env.api.config,
      logger: createLogger({ level: 'silent' }),
      masterKeys: loadMasterKeys(env.api.config),
    };
    // 120 s is beyond a pass of 10 s (two passes and a minute ahead): nothing to do.
    expect(await refreshRunningOut(deps, 10_000)).toMatchObject({ refreshed: 0 });
    // Within a pass of a minute: refreshed now, before any call needs it.
    const before = (await connectionOf(env, env.user, 'soon'))!;
    expect(await refreshRunningOut(deps, 60_000)).toMatchObject({ refreshed: 1 });
    expect(soon.tokenRequests).toEqual(['authorization_code', 'refresh_token']);
    const after = (await connectionOf(env, env.user, 'soon'))!;
    expect(after).toMatchObject({ status: 'connected', refreshedAt: expect.any(String) });
    expect(after.expiresAt! > before.expiresAt!).toBe(true);

    soon.revokeGrantsOf('person-soon');
    expect(await refreshRunningOut(deps, 60_000)).toMatchObject({ refreshed: 0, signInNeeded: 1 });
    expect(await connectionOf(env, env.user, 'soon')).toMatchObject({ status: 'needs-sign-in' });
  });

  test('signing out revokes at the server and forgets; deleting the server signs out first', async ({ env }) => {
    await registerMcp(env, 'leaving', { url: server.url, auth: { type: 'oauth' } });
    server.signInAs('person-l');
    const registeredBefore = server.registered.length;
    await signIn(env, env.user, 'leaving');
    expect(server.registered.length).toBe(registeredBefore + 1);
    const revokedBefore = server.revoked.length;
    const out = await call(`${env.api.url}/mcp/leaving/connection`, { method: 'DELETE', headers: env.user.auth });
    expect(out.body).toEqual({ revoked: true });
    expect(server.revoked.length).toBe(revokedBefore + 2);
    expect(await connectionOf(env, env.user, 'leaving')).toMatchObject({ status: 'not-connected' });
    expect((await call(`${env.api.url}/mcp/leaving/connection`, { method: 'DELETE', headers: env.user.auth })).status).toBe(404);

    // Signed in again: with the client registered the first time, not a new one.
    await signIn(env, env.user, 'leaving');
    expect(server.registered.length).toBe(registeredBefore + 1);
    expect((await call(`${env.api.url}/mcp/leaving`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    expect(server.revoked.length).toBe(revokedBefore + 4);
  });
});

describe('a turn that needs a sign-in', () => {
  test('waits as on a question: the link goes over the channel, a click signs in, and the call runs', async ({ env }) => {
    const hooks = await startWebhookReceiver();
    onTestFinished(() => hooks.close());
    await registerMcp(env, 'crm', { url: server.url, auth: { type: 'oauth' } });
    server.signInAs('person-c');
    await signIn(env, env.user, 'crm');
    const sessionId = await env.newSession({ mcps: ['crm'], userChannels: [{ provider: 'webhook', config: { url: hooks.url } }] });
    // Signed out after the deploy: the next call finds no sign-in.
    expect((await call(`${env.api.url}/mcp/crm/connection`, { method: 'DELETE', headers: env.user.auth })).status).toBe(200);

    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-crm', name: 'whoami', arguments: {} }] }, { text: 'ok' });
    const waiting = await sendAndWait(env, sessionId, 'look me up');
    expect(waiting.body).toMatchObject({
      status: 'waiting',
      waitingFor: {
        kind: 'connect',
        server: 'crm',
        approvalId: expect.stringMatching(/^apr_/),
        url: expect.stringContaining('/approval/'),
      },
    });
    const { approvalId, url } = (waiting.body as unknown as { waitingFor: { approvalId: string; url: string } }).waitingFor;
    // Reading the session says the same, without the link (a `read` key may read it).
    const read = await call<{ status: string; waitingFor: Record<string, unknown> }>(`${env.api.url}/session/${sessionId}`, {
      headers: env.user.auth,
    });
    expect(read.body).toMatchObject({ status: 'waiting', waitingFor: { kind: 'connect', approvalId, server: 'crm' } });
    expect(read.body.waitingFor).not.toHaveProperty('url');
    const [received] = await hooks.waitForRequests(1);
    const sent = JSON.parse(received!.body) as { approval: { question: string }; links: { options: { option: string; url: string }[] } };
    expect(sent.approval.question).toMatch(/Sign in to the MCP server "crm"/);
    expect(sent.links.options.map((link) => link.option)).toEqual(['Connect']);

    // Not answerable by a choice, by key or by link.
    const byKey = await call(`${env.api.url}/approval/${approvalId}/answer`, { headers: env.user.auth, json: { choice: 'Connect' } });
    expect(byKey.status).toBe(400);
    // A scanner sees a button and starts nothing.
    const statesBefore = await signInsUnderWay(env, 'crm');
    const scanned = await openLink(sent.links.options[0]!.url, SCANNER_HEADERS);
    expect(scanned.status).toBe(200);
    expect(scanned.text).toContain('Sign in');
    expect(await signInsUnderWay(env, 'crm')).toBe(statesBefore);

    // The person's click goes to the authorization server, whose consent comes back to the callback.
    const clicked = await openLink(url, CLICK_HEADERS);
    expect(clicked.status).toBe(303);
    const consent = await fetch(clicked.location!, { redirect: 'manual' });
    const landed = await openLink(consent.headers.get('location')!, CLICK_HEADERS);
    expect(landed.status).toBe(200);

    const events = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.completed'));
    expect(toolResults(events).at(-1)).toMatchObject({ toolName: 'whoami', output: 'signed in as person-c' });
    expect(events.find((event) => event.type === 'approval.answered')).toMatchObject({ approvalId, choice: 'Connect' });
  });

  test('an abort ends the wait, and a sign-in after it runs nothing; the approval.requested webhook names the server', async ({ env }) => {
    const hooks = await startWebhookReceiver();
    onTestFinished(() => hooks.close());
    const subscribed = await call<{ id: string }>(`${env.api.url}/webhook`, {
      headers: env.user.auth,
      json: { url: hooks.url, events: ['approval.requested'] },
    });
    expect(subscribed.status, subscribed.text).toBe(201);
    await registerMcp(env, 'desk', { url: server.url, auth: { type: 'oauth' } });
    server.signInAs('person-d');
    await signIn(env, env.user, 'desk');
    const sessionId = await sessionWith(env, 'desk');
    expect((await call(`${env.api.url}/mcp/desk/connection`, { method: 'DELETE', headers: env.user.auth })).status).toBe(200);

    env.fake.reset();
    env.fake.enqueue({ toolCalls: [{ id: 'c-desk', name: 'whoami', arguments: {} }] }, { text: 'never read' });
    const sent = await call(`${env.api.url}/session/${sessionId}?async=1`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text: 'look me up' }] },
    });
    expect(sent.status).toBe(202);
    const asked = await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'approval.requested'));
    const { approvalId } = asked.find((event) => event.type === 'approval.requested') as unknown as { approvalId: string };

    // The subscriber learns which server waits for a sign-in, and gets no link to it.
    const [delivered] = await hooks.waitForRequests(1);
    const payload = JSON.parse(delivered!.body) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: 'approval.requested', data: { approvalId, sessionId, connect: { serverId: 'desk' } } });
    expect(delivered!.body).not.toContain('/approval/');

    const aborted = await call<{ aborted: boolean }>(`${env.api.url}/session/${sessionId}/abort`, { headers: env.user.auth, json: {} });
    expect(aborted.body).toMatchObject({ aborted: true });
    await env.waitForEvents(sessionId, (all) => all.some((event) => event.type === 'turn.aborted'));
    const session = await call<{ status: string }>(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(session.body.status).toBe('idle');

    // Signing in now answers the question the aborted turn left, and resumes nothing: the tool never runs.
    const callsBefore = server.calls.filter((entry) => entry.subject === 'person-d').length;
    await signIn(env, env.user, 'desk');
    await expect
      .poll(async () => (await call<{ status: string }>(`${env.api.url}/approval/${approvalId}`, { headers: env.user.auth })).body.status, {
        timeout: 20_000,
      })
      .toBe('answered');
    const events = await env.events(sessionId);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(0);
    expect(toolResults(events)).toHaveLength(0);
    expect(server.calls.filter((entry) => entry.subject === 'person-d')).toHaveLength(callsBefore);
  });
});

describe('authorization servers that cannot be used', () => {
  /** An MCP server whose 401 names metadata the test writes, and an authorization server answering `asMetadata`. */
  async function hostile(asMetadata: (origin: string) => { status?: number; body: string }, authorizationServer?: string) {
    const app = express();
    const http = await new Promise<HttpServer>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    onTestFinished(() => closeServer(http));
    const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    app.post('/mcp', (_req, res) => {
      res.set('WWW-Authenticate', `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`).status(401).end();
    });
    app.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => {
      res.json({ resource: `${origin}/mcp`, authorization_servers: [authorizationServer ?? origin] });
    });
    app.get('/.well-known/oauth-authorization-server', (_req, res) => {
      const answer = asMetadata(origin);
      res
        .status(answer.status ?? 200)
        .type('json')
        .send(answer.body);
    });
    return `${origin}/mcp`;
  }

  const good = (origin: string) => ({
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
  });

  test.for([
    [
      'an authorization server on a private address',
      () => hostile((origin) => ({ body: JSON.stringify(good(origin)) }), 'http://10.1.2.3/'),
      /10\.1\.2\.3|private|refused/i,
    ],
    [
      'metadata naming another issuer',
      () => hostile((origin) => ({ body: JSON.stringify({ ...good(origin), issuer: 'https://elsewhere.example' }) })),
      /names the issuer https:\/\/elsewhere\.example/,
    ],
    [
      'oversized metadata',
      () => hostile((origin) => ({ body: JSON.stringify({ ...good(origin), padding: 'x'.repeat(200_000) }) })),
      /too large|more than|bytes/i,
    ],
    ['malformed metadata', () => hostile((origin) => ({ body: JSON.stringify({ issuer: origin }) })), /could not be read/],
    [
      'no registration and no client configured',
      () => hostile((origin) => ({ body: JSON.stringify(good(origin)) })),
      /no dynamic client registration.*auth\.clientId/,
    ],
  ] as const)('%s: a clear 502, nothing stored', async ([, start, message], { env }) => {
    const url = await start();
    const id = `hostile-${crypto.randomUUID().slice(0, 8)}`;
    await registerMcp(env, id, { url, auth: { type: 'oauth' } });
    const started = await call<{ detail: string }>(`${env.api.url}/mcp/${id}/connect`, { method: 'POST', headers: env.user.auth });
    expect(started.status, started.text).toBe(502);
    expect(started.body.detail).toMatch(message);
    const states = await env.api.db.query('SELECT count(*)::int AS n FROM mcp_connect_states WHERE user_id = $1 AND server_id = $2', [
      env.user.userId,
      id,
    ]);
    expect(states.rows[0].n).toBe(0);
  });
});
