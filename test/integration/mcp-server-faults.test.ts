// Remote MCP servers that misbehave, over HTTP with the fake model: a tool's own error, a JSON-RPC error, a
// call that hangs past MCP_CALL_TIMEOUT_MS, an answer past MCP_RESULT_MAX_BYTES, a server that went away,
// one that holds the connection open after `initialize`, and one echoing the secret it was sent. Each
// reaches the model as a tool error (or a masked text), and the turn completes. A server echoing its
// header secret into its tool list is refused at deploy; one echoing its URL's token into results and
// errors has it masked. The short call timeout is this file's alone: the other MCP tests keep the
// default, so a slow machine does not turn a call into a timeout.
import { describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { fakeMcpServers, registerMcp, sendAndWait, toolResults } from '../helpers/harness/mcp-agent.ts';
import { call } from '../helpers/client/request.ts';
import { text, type FakeMcpServer } from '../helpers/fakes/mcp-servers.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', MCP_CALL_TIMEOUT_MS: '3000', MCP_CONNECT_TIMEOUT_MS: '2000' });

const fake = fakeMcpServers();

describe('faults', () => {
  test("a tool's own error, a refusal, a hang and a huge answer each reach the model as a tool error, and the turn completes", async ({
    env,
  }) => {
    const server = await fake([
      { name: 'fails', run: () => ({ content: [{ type: 'text', text: 'the refund API said no' }], isError: true }) },
      {
        name: 'throws',
        run: () => {
          throw new Error('database is locked');
        },
      },
      { name: 'hangs', run: () => new Promise(() => undefined) },
      { name: 'huge', run: () => text('x'.repeat(3 * 1024 * 1024)) },
    ]);
    await registerMcp(env, 'troubled', { url: server.url });
    const sessionId = await env.newSession({ mcps: ['troubled'] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'fails', arguments: {} },
          { id: 'c2', name: 'throws', arguments: {} },
          { id: 'c3', name: 'hangs', arguments: {} },
          { id: 'c4', name: 'huge', arguments: {} },
        ],
      },
      { text: 'Reported.' },
    );
    expect((await sendAndWait(env, sessionId, 'try them all')).body).toMatchObject({ status: 'completed', reply: 'Reported.' });
    const results = toolResults(await env.events(sessionId));
    expect(results.map((result) => [result.toolName, 'isError' in result && result.isError])).toEqual([
      ['fails', true],
      ['throws', true],
      ['hangs', true],
      ['huge', true],
    ]);
    const [fails, throws, hangs, huge] = results.map((result) => String('output' in result ? result.output : ''));
    expect(fails).toBe('the refund API said no');
    expect(throws).toMatch(/database is locked/);
    expect(hangs).toMatch(/did not answer within 3000 ms/);
    expect(huge).toMatch(/went past 1048576 bytes/);
  });

  test('a server that went down fails the call after its retries, as a tool error the model reads', async ({ env }) => {
    const server = await fake([{ name: 'flaky' }]);
    await registerMcp(env, 'flaky', { url: server.url });
    const sessionId = await env.newSession({ mcps: ['flaky'] });
    await server.close();
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'flaky', arguments: {} }] }, { text: 'It is down.' });
    expect((await sendAndWait(env, sessionId, 'go')).body).toMatchObject({ status: 'completed', reply: 'It is down.' });
    expect(toolResults(await env.events(sessionId))[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/"flaky" could not be reached.*tried 3 times/),
    });
  });

  test('a server that answers initialize and then holds the connection fails the call within the connect deadline', async ({ env }) => {
    const holding = await fake([{ name: 'held' }]);
    await registerMcp(env, 'holding', { url: holding.url });
    // Listed at deploy while it still answers; then it starts holding every `notifications/initialized`.
    const sessionId = await env.newSession({ mcps: ['holding'] });
    await holding.close();
    const held = await fake([{ name: 'held' }], { holds: 'notifications/initialized' });
    await registerMcp(env, 'holding', { url: held.url });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'held', arguments: {} }] }, { text: 'It hangs.' });
    expect((await sendAndWait(env, sessionId, 'go')).body).toMatchObject({ status: 'completed', reply: 'It hangs.' });
    expect(toolResults(await env.events(sessionId))[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/"holding" could not be reached: .*did not finish connecting within 2000 ms.*tried 3 times/),
    });
    expect(held.calls).toEqual([]);
  });

  test('a server echoing the secret in its headers: the model and the events see the secret by name only', async ({ env }) => {
    const token = `tok-${crypto.randomUUID()}`;
    await call(`${env.api.url}/secret/ECHO_TOKEN`, { method: 'PUT', headers: env.user.auth, json: { value: token, hosts: ['127.0.0.1'] } });
    let echo: FakeMcpServer | undefined = undefined;
    echo = await fake([{ name: 'whoami', run: () => text(`you sent ${String(echo!.requests.at(-1)?.authorization)}`) }]);
    await registerMcp(env, 'echo', { url: echo.url, headers: { Authorization: 'Bearer {{secrets.ECHO_TOKEN}}' } });
    const sessionId = await env.newSession({ mcps: ['echo'] });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'whoami', arguments: {} }] }, { text: 'ok' });
    await sendAndWait(env, sessionId, 'go');
    const events = await env.events(sessionId);
    expect(toolResults(events)[0]).toMatchObject({ output: 'you sent Bearer [secret ECHO_TOKEN]' });
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(env.fake.requests.at(-1)!.body)).not.toContain(token);
  });

  test('a server echoing its header secret into its tool list: the redeploy is refused, and no revision, model request or event holds the secret', async ({
    env,
  }) => {
    const token = `tok-${crypto.randomUUID()}`;
    await call(`${env.api.url}/secret/SCHEMA_TOKEN`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { value: token, hosts: ['127.0.0.1'] },
    });
    let echoing = false;
    const server = await fake([
      {
        name: 'lookup',
        inputSchema: ({ headers }) => ({
          type: 'object',
          properties: {
            q: echoing
              ? { type: 'string', description: `sent with ${String(headers.authorization)}`, default: String(headers.authorization) }
              : { type: 'string' },
          },
        }),
        run: (_args, { headers }) => text(`looked up as ${String(headers.authorization)}`),
      },
    ]);
    await registerMcp(env, 'schema-echo', { url: server.url, headers: { Authorization: 'Bearer {{secrets.SCHEMA_TOKEN}}' } });
    const { name } = await env.deploy({ mcps: ['schema-echo'] });

    echoing = true;
    const redeploy = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: { name, model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['schema-echo'] },
    });
    expect(redeploy.body.errors).toEqual([
      {
        path: '/mcps/0',
        message: expect.stringMatching(
          /carries the value of the secret SCHEMA_TOKEN \(at \/tools\/0\/inputSchema\/properties\/q\/(description|default)\)/,
        ),
      },
    ]);
    expect(redeploy.text).not.toContain(token);
    const live = await call(`${env.api.url}/mcp/schema-echo`, { headers: env.user.auth });
    expect(live.status).toBe(502);
    expect(live.text).not.toContain(token);

    const revisions = await call<{ revisions: { revision: number }[] }>(`${env.api.url}/agent/${name}/revisions`, {
      headers: env.user.auth,
    });
    expect(revisions.body.revisions.map((revision) => revision.revision)).toEqual([1]);
    const frozen = await call(`${env.api.url}/agent/${name}/revisions/1`, { headers: env.user.auth });
    expect(frozen.status).toBe(200);
    expect(frozen.text).not.toContain(token);

    const session = await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
    const before = env.fake.requests.length;
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'x' } }] }, { text: 'ok' });
    expect((await sendAndWait(env, session.body.id, 'go')).body).toMatchObject({ status: 'completed' });
    const sent = env.fake.requests.slice(before);
    expect(sent).toHaveLength(2);
    for (const request of sent) expect(JSON.stringify(request.body)).not.toContain(token);
    const events = await env.events(session.body.id);
    expect(toolResults(events)[0]).toMatchObject({ output: 'looked up as Bearer [secret SCHEMA_TOKEN]' });
    expect(JSON.stringify(events)).not.toContain(token);
  });

  test('a server echoing a literal credential header or its URL token into its tool list is refused at deploy, naming neither value', async ({
    env,
  }) => {
    const literal = `lit${crypto.randomUUID().replace(/-/g, '')}`;
    const token = `tok${crypto.randomUUID().replace(/-/g, '')}`;
    const headerEcho = await fake([
      {
        name: 'lookup',
        inputSchema: ({ headers }) => ({ type: 'object', properties: { q: { type: 'string', default: String(headers['x-api-key']) } } }),
        run: () => text('ok'),
      },
    ]);
    const urlEcho = await fake([
      {
        name: 'where',
        inputSchema: ({ url }) => ({ type: 'object', properties: { at: { type: 'string', description: `called as ${url}` } } }),
        run: () => text('ok'),
      },
    ]);
    // A credential written as a plain header value (not a secret), and one in the URL's query.
    await registerMcp(env, 'literal-echo', { url: headerEcho.url, headers: { 'X-Api-Key': literal } });
    await registerMcp(env, 'token-echo', { url: `${urlEcho.url}?token=${token}` });
    const deployed = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: { name: 'echoes', model: { providerId: 'openai-compatible', modelId: 'fake-model' }, mcps: ['literal-echo', 'token-echo'] },
    });
    expect(deployed.body.errors).toEqual([
      {
        path: '/mcps/0',
        message: expect.stringMatching(/carries the value of its header X-Api-Key \(at \/tools\/0\/inputSchema\/properties\/q\/default\)/),
      },
      { path: '/mcps/1', message: expect.stringMatching(/carries a credential of its URL \(query, fragment or password\)/) },
    ]);
    expect(deployed.text).not.toContain(literal);
    expect(deployed.text).not.toContain(token);
  });

  test("a server quoting its URL's token in results and errors: events and model requests carry it redacted", async ({ env }) => {
    const token = `tok${crypto.randomUUID().replace(/-/g, '')}`;
    const server = await fake([
      { name: 'whereami', run: (_args, { url }) => text(`you called ${url}`) },
      { name: 'refuses', run: (_args, { url }) => ({ content: [{ type: 'text', text: `no access with ${url}` }], isError: true }) },
      {
        name: 'throws',
        run: (_args, { url }) => {
          throw new Error(`token in ${new URL(url, 'http://x').searchParams.get('token')} expired`);
        },
      },
    ]);
    await registerMcp(env, 'url-echo', { url: `${server.url}?token=${token}` });
    const sessionId = await env.newSession({ mcps: ['url-echo'] });
    const before = env.fake.requests.length;
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'whereami', arguments: {} },
          { id: 'c2', name: 'refuses', arguments: {} },
          { id: 'c3', name: 'throws', arguments: {} },
        ],
      },
      { text: 'ok' },
    );
    expect((await sendAndWait(env, sessionId, 'go')).body).toMatchObject({ status: 'completed' });
    const events = await env.events(sessionId);
    const [whereami, refuses, throws] = toolResults(events);
    expect(whereami).toMatchObject({ output: 'you called /mcp?[redacted]' });
    expect(refuses).toMatchObject({ isError: true, output: 'no access with /mcp?[redacted]' });
    expect(throws).toMatchObject({ isError: true, output: expect.stringMatching(/token in \[redacted\] expired/) });
    expect(JSON.stringify(events)).not.toContain(token);
    for (const request of env.fake.requests.slice(before)) expect(JSON.stringify(request.body)).not.toContain(token);
  });
});
