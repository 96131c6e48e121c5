// Remote MCP servers over HTTP with the fake model: registered with PUT /mcp/<id>, named in a bundle's
// `mcps`, listed and frozen at deploy, and called through the turn, against a server nobody here wrote
// (`@modelcontextprotocol/server-everything`), fakes, and one that speaks only the older HTTP+SSE
// transport. Servers that misbehave: mcp-server-faults.test.ts.
import { afterAll, beforeAll, describe, expect, onTestFinished } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { fakeMcpServers, registerMcp, sendAndWait, toolResults } from '../helpers/harness/mcp-agent.ts';
import { call } from '../helpers/client/request.ts';
import {
  startEverythingServer,
  startLegacySseMcpServer,
  text,
  type EverythingServer,
  type FakeMcpTool,
} from '../helpers/fakes/mcp-servers.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', MCP_SERVERS_PER_USER: '30' });

let everything: EverythingServer;
beforeAll(async () => {
  everything = await startEverythingServer();
});
afterAll(async () => {
  await everything?.close();
});

const declaredTools = (body: unknown): string[] =>
  ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
const toolMessages = (body: unknown) =>
  ((body as { messages: { role: string; content: unknown }[] }).messages ?? []).filter((message) => message.role === 'tool');

const fake = fakeMcpServers();

describe('registering', () => {
  test('PUT, GET /mcps beside the built-in servers, GET /mcp/<id> with its tools, DELETE', async ({ env }) => {
    const first = await registerMcp(env, 'everything-a', {
      url: everything.url,
      description: 'the reference server',
      headers: { 'X-Team': 'a' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: 'everything-a', kind: 'remote', url: everything.url, headerNames: ['X-Team'] });
    expect(first.body).not.toHaveProperty('headers');
    expect((await registerMcp(env, 'everything-a', { url: everything.url })).status).toBe(200);

    const listed = await call<{ id: string; kind: string }[]>(`${env.api.url}/mcps`, { headers: env.user.auth });
    expect(listed.body.filter((server) => server.kind === 'builtin').map((server) => server.id)).toEqual(
      expect.arrayContaining(['time', 'workspace', 'http', 'memory']),
    );
    expect(listed.body.filter((server) => server.kind === 'remote').map((server) => server.id)).toContain('everything-a');

    const one = await call<{ tools: { name: string }[] }>(`${env.api.url}/mcp/everything-a`, { headers: env.user.auth });
    expect(one.status).toBe(200);
    expect(one.body.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image']));

    expect((await call(`${env.api.url}/mcp/everything-a`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    expect((await call(`${env.api.url}/mcp/everything-a`, { method: 'DELETE', headers: env.user.auth })).status).toBe(404);
    expect((await call(`${env.api.url}/mcp/everything-a`, { headers: env.user.auth })).status).toBe(404);
  });

  test('refuses a built-in id, a malformed id, a URL the outbound guard refuses, and ids past MCP_SERVERS_PER_USER', async ({ env }) => {
    expect((await registerMcp(env, 'http', { url: everything.url })).body).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/built-in/),
    });
    expect((await registerMcp(env, 'Not_Valid', { url: everything.url })).status).toBe(400);
    const refused = await registerMcp(env, 'private', { url: 'http://10.1.2.3/mcp' });
    expect(refused.body).toMatchObject({ status: 400, errors: [{ path: '/url' }] });
    expect((await registerMcp(env, 'ftp', { url: 'ftp://example.com/mcp' })).status).toBe(400);
    expect((await registerMcp(env, 'extra', { url: everything.url, headers: { 'bad header': 'x' } })).status).toBe(400);

    const user = env.user;
    const existing = await call<{ kind: string }[]>(`${env.api.url}/mcps`, { headers: user.auth });
    const room = 30 - existing.body.filter((server) => server.kind === 'remote').length;
    for (let index = 0; index < room; index++)
      expect((await registerMcp(env, `filler-${index}`, { url: everything.url })).status).toBe(201);
    expect((await registerMcp(env, 'one-too-many', { url: everything.url })).body).toMatchObject({
      status: 403,
      type: expect.stringMatching(/mcp-server-limit$/),
    });
    // Replacing one is not a new one.
    expect((await registerMcp(env, 'filler-0', { url: everything.url })).status).toBe(200);
    for (let index = 0; index < room; index++) await call(`${env.api.url}/mcp/filler-${index}`, { method: 'DELETE', headers: user.auth });
  });

  test('GET /mcp/<id> of a server that is down is a 502 naming it', async ({ env }) => {
    const gone = await fake([{ name: 'noop' }]);
    await gone.close();
    await registerMcp(env, 'gone', { url: gone.url });
    const answer = await call(`${env.api.url}/mcp/gone`, { headers: env.user.auth });
    expect(answer.body).toMatchObject({
      status: 502,
      type: expect.stringMatching(/mcp-unreachable$/),
      detail: expect.stringMatching(/"gone"/),
    });
    await call(`${env.api.url}/mcp/gone`, { method: 'DELETE', headers: env.user.auth });
  });
});

describe('deploying', () => {
  test("refuses an id nobody registered, a server that cannot be reached, and a tool name another tool has, at the id's pointer", async ({
    env,
  }) => {
    const deploy = (bundle: Record<string, unknown>) =>
      call<{ ok: boolean; errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
        headers: env.user.auth,
        json: {
          name: `mcp-${crypto.randomUUID().slice(0, 8)}`,
          model: { providerId: 'openai-compatible', modelId: 'fake-model' },
          ...bundle,
        },
      });
    const unknown = await deploy({ mcps: ['time', 'nobody-registered-this'] });
    expect(unknown.body.errors).toEqual([
      { path: '/mcps/1', message: expect.stringMatching(/unknown tool server "nobody-registered-this"/) },
    ]);

    const down = await fake([{ name: 'noop' }]);
    await down.close();
    await registerMcp(env, 'down', { url: down.url });
    const unreachable = await deploy({ mcps: ['down'] });
    expect(unreachable.body.errors).toEqual([{ path: '/mcps/0', message: expect.stringMatching(/"down" .*could not be reached/) }]);

    const clash = await fake([{ name: 'current_time' }, { name: 'lookup' }]);
    await registerMcp(env, 'clash', { url: clash.url });
    const clashing = await deploy({
      mcps: ['time', 'clash'],
      customTools: [{ id: 'lookup', description: 'mine', parameters: { type: 'object', properties: {} } }],
    });
    expect(clashing.body.errors.map((error) => error.path)).toEqual(['/mcps/1', '/mcps/1']);
    expect(clashing.body.errors.map((error) => error.message).join('\n')).toMatch(
      /"current_time".*"time"[\s\S]*"lookup".*\/customTools\/0/,
    );
  });

  test('a revision keeps the tools listed at its deploy; a redeploy lists them again', async ({ env }) => {
    const tools: FakeMcpTool[] = [{ name: 'alpha' }];
    const server = await fake(tools);
    await registerMcp(env, 'changing', { url: server.url });
    const { name } = await env.deploy({ mcps: ['changing'] });
    const before = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;
    tools.push({ name: 'beta' });
    await env.deploy({ name, mcps: ['changing'] });
    const after = (await call<{ id: string }>(`${env.api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} })).body.id;

    env.fake.reset();
    env.fake.enqueue({ text: 'one' }, { text: 'two' });
    await sendAndWait(env, before, 'hi');
    await sendAndWait(env, after, 'hi');
    const [first, second] = env.fake.requests;
    expect(declaredTools(first!.body)).toContain('alpha');
    expect(declaredTools(first!.body)).not.toContain('beta');
    expect(declaredTools(second!.body)).toEqual(expect.arrayContaining(['alpha', 'beta']));
  });
});

describe('calling', () => {
  test("server-everything's tools run through a deployed agent, and their results reach the next model request", async ({ env }) => {
    await registerMcp(env, 'everything', { url: everything.url });
    const sessionId = await env.newSession({ mcps: ['everything'] });
    env.fake.reset();
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'echo', arguments: { message: 'hello from the model' } },
          { id: 'c2', name: 'get-sum', arguments: { a: 2, b: 40 } },
          { id: 'c3', name: 'get-tiny-image', arguments: {} },
        ],
      },
      { text: 'Done.' },
    );
    expect((await sendAndWait(env, sessionId, 'use the tools')).body).toMatchObject({ status: 'completed', reply: 'Done.' });
    const [echo, sum, image] = toolResults(await env.events(sessionId));
    expect(echo).toMatchObject({ toolName: 'echo', output: expect.stringContaining('hello from the model') });
    expect(echo).not.toHaveProperty('isError');
    expect(sum).toMatchObject({ toolName: 'get-sum', output: expect.stringContaining('42') });
    expect(image).toMatchObject({ toolName: 'get-tiny-image', output: expect.stringMatching(/\[image image\/png, \d+ bytes/) });
    const sent = JSON.stringify(toolMessages(env.fake.requests[1]!.body));
    expect(sent).toContain('hello from the model');
    expect(sent).toContain('42');
  });

  test('a server that speaks only the older HTTP+SSE transport is listed and called over it', async ({ env }) => {
    const legacy = await startLegacySseMcpServer([{ name: 'old_school', run: () => text('answered over SSE') }]);
    onTestFinished(() => legacy.close());
    await registerMcp(env, 'legacy', { url: legacy.url });
    const sessionId = await env.newSession({ mcps: ['legacy'] });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'old_school', arguments: {} }] }, { text: 'ok' });
    expect((await sendAndWait(env, sessionId, 'go')).body).toMatchObject({ status: 'completed' });
    expect(toolResults(await env.events(sessionId))[0]).toMatchObject({ toolName: 'old_school', output: 'answered over SSE' });
    expect(legacy.calls).toHaveLength(1);
  });

  test("input that does not match the tool's schema is refused before the server is called", async ({ env }) => {
    const server = await fake([
      {
        name: 'typed',
        inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false },
      },
    ]);
    await registerMcp(env, 'typed', { url: server.url });
    const sessionId = await env.newSession({ mcps: ['typed'] });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'typed', arguments: { n: 'not a number' } }] }, { text: 'ok' });
    await sendAndWait(env, sessionId, 'go');
    expect(toolResults(await env.events(sessionId))[0]).toMatchObject({ isError: true, output: expect.stringMatching(/Invalid input/) });
    expect(server.calls).toEqual([]);
  });

  test('a call carries its idempotency key in _meta, the same the tool.call event names; header secrets go only to allowed hosts', async ({
    env,
  }) => {
    const token = `tok-${crypto.randomUUID()}`;
    await call(`${env.api.url}/secret/MCP_TOKEN`, { method: 'PUT', headers: env.user.auth, json: { value: token, hosts: ['127.0.0.1'] } });
    const server = await fake([{ name: 'record' }]);
    await registerMcp(env, 'recorder', { url: server.url, headers: { Authorization: 'Bearer {{secrets.MCP_TOKEN}}' } });
    const sessionId = await env.newSession({ mcps: ['recorder'] });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'record', arguments: { what: 'refund 12' } }] }, { text: 'ok' });
    await sendAndWait(env, sessionId, 'go');
    const events = await env.events(sessionId);
    const called = events.find((event) => event.type === 'tool.call');
    expect(called).toMatchObject({ idempotencyKey: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(server.calls).toHaveLength(1);
    expect(server.calls[0]).toMatchObject({
      arguments: { what: 'refund 12' },
      meta: { idempotencyKey: (called as { idempotencyKey: string }).idempotencyKey },
    });
    expect(server.calls[0]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(JSON.stringify(events)).not.toContain(token);

    // The same secret, allowed only elsewhere: the deploy is refused naming the secret, never its value.
    await call(`${env.api.url}/secret/MCP_TOKEN`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { value: token, hosts: ['example.com'] },
    });
    const refused = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: `mcp-${crypto.randomUUID().slice(0, 8)}`,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['recorder'],
      },
    });
    expect(refused.body.errors).toEqual([{ path: '/mcps/0', message: expect.stringMatching(/MCP_TOKEN may be sent only to example.com/) }]);
    expect(JSON.stringify(refused.body)).not.toContain(token);
  });
});

describe('policies', () => {
  test("a remote tool's policy holds like a built-in one's; a policy naming a tool the server lacks fails the deploy", async ({ env }) => {
    const server = await fake([{ name: 'delete_everything' }, { name: 'read_one' }]);
    await registerMcp(env, 'guarded', { url: server.url });
    const sessionId = await env.newSession({ mcps: ['guarded'], toolPolicies: { guarded: { delete_everything: 'never' } } });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'delete_everything', arguments: {} },
          { id: 'c2', name: 'read_one', arguments: {} },
        ],
      },
      { text: 'ok' },
    );
    expect((await sendAndWait(env, sessionId, 'go')).body).toMatchObject({ status: 'completed' });
    const [refused, read] = toolResults(await env.events(sessionId));
    expect(refused).toMatchObject({ isError: true, output: expect.stringMatching(/policy refuses the tool "delete_everything"/) });
    expect(read).not.toHaveProperty('isError');
    expect(server.calls.map((received) => received.name)).toEqual(['read_one']);

    const deploy = await call<{ errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: `mcp-${crypto.randomUUID().slice(0, 8)}`,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['guarded'],
        toolPolicies: { guarded: { drop_tables: 'ask' } },
        safeTools: { guarded: ['read_one', 'drop_tables'] },
      },
    });
    expect(deploy.body.errors).toEqual([
      { path: '/toolPolicies/guarded/drop_tables', message: 'the MCP server "guarded" offers no tool "drop_tables"' },
      { path: '/safeTools/guarded/1', message: 'the MCP server "guarded" offers no tool "drop_tables"' },
    ]);
  });
});
