// Each agent as an MCP server, driven by the official MCP SDK's client and nothing of ours on the
// client side: the tools it lists (by the key's scopes, a tool per custom command), send_message on a new
// and on an existing session with progress notifications, a command's tool, a cancellation that aborts
// the turn, a turn that waits on a client answering at once, the sessions as resources, and the
// protocol's own errors for bad input. Every call is a normal turn: its events are the session's.
import { describe, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { createTestUser } from '../helpers/harness/users.ts';
import { FAKE_MODEL, type AgentEnv } from '../helpers/harness/agent-env.ts';

const test = agentTest();

const LOOKUP = {
  id: 'lookup_order',
  description: 'Look up an order in the shop system',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'], additionalProperties: false },
};

/** A connected client of the agent's MCP server, signed in with `key` (the test user's by default). */
async function connect(env: AgentEnv, agent: string, key = env.user.apiKey): Promise<Client> {
  const { body } = await call<{ mcpUrl: string }>(`${env.api.url}/agent/${agent}`, { headers: { authorization: `Bearer ${key}` } });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(body.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

const textOf = (result: CallToolResult) => result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

interface TurnContent {
  status: string;
  sessionId: string;
  messageId: string;
  reply?: string;
  waitingFor?: { kind: string; toolCalls?: { toolCallId: string; toolName: string }[] };
}

describe('an agent as an MCP server', () => {
  test('GET /agent gives its mcpUrl; send_message runs turns on a new and on an existing session, with progress', async ({ env }) => {
    const { name } = await env.deploy();
    const agent = await call<{ mcpUrl: string }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    expect(agent.body.mcpUrl).toBe(`${env.api.url}/agent/${name}/mcp`);
    const client = await connect(env, name);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['send_message', 'get_session', 'list_sessions']);

    env.fake.enqueue({ text: 'Hello from the agent, word by word.', chunkDelayMs: 5 });
    const progress: string[] = [];
    const first = (await client.callTool({ name: 'send_message', arguments: { message: 'Hi there' } }, undefined, {
      onprogress: (note) => progress.push(note.message ?? ''),
    })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toBe('Hello from the agent, word by word.');
    const content = first.structuredContent as unknown as TurnContent;
    expect(content).toMatchObject({
      status: 'completed',
      sessionId: expect.stringMatching(/^ses_/),
      messageId: expect.stringMatching(/^msg_/),
    });
    expect(progress).toContain('The agent is working on it');
    expect(progress.some((message) => message.startsWith('Writing: '))).toBe(true);

    // The same session again: the model sees the conversation so far.
    env.fake.enqueue({ text: 'Second answer.' });
    const second = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'And again', sessionId: content.sessionId },
    })) as CallToolResult;
    expect((second.structuredContent as unknown as TurnContent).sessionId).toBe(content.sessionId);
    expect(textOf(second)).toBe('Second answer.');
    const seen = env.fake.requests.at(-1)!.body.messages.map((message) => message.role);
    expect(seen.filter((role) => role === 'user')).toHaveLength(2);

    // A normal turn: the session's events and its listing say so.
    const events = await env.events(content.sessionId);
    expect(events.filter((event) => event.type === 'turn.completed')).toHaveLength(2);
    const listed = (await client.callTool({ name: 'list_sessions', arguments: {} })) as CallToolResult;
    expect((listed.structuredContent as { sessions: { id: string }[] }).sessions.map((session) => session.id)).toEqual([content.sessionId]);
    const read = (await client.callTool({ name: 'get_session', arguments: { sessionId: content.sessionId, limit: 2 } })) as CallToolResult;
    expect(textOf(read)).toContain('Second answer.');
    expect((read.structuredContent as { messages: unknown[] }).messages).toHaveLength(2);

    // The sessions are resources too.
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([`session://${content.sessionId}`]);
    const resource = await client.readResource({ uri: `session://${content.sessionId}` });
    const transcript = JSON.parse(String((resource.contents[0] as { text: string }).text)) as { messages: unknown[] };
    expect(transcript.messages).toHaveLength(4);
    await client.close();
  });

  test("each custom command is a tool whose arguments are its template's", async ({ env }) => {
    const { name } = await env.deploy({ command: { review: { template: 'Review ${1} against ${2}, tone: ${tone}.' } } });
    const client = await connect(env, name);
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'command_review')!;
    expect(tool.inputSchema).toMatchObject({
      required: ['args', 'flags'],
      properties: { args: { minItems: 2, maxItems: 2 }, flags: { required: ['tone'] } },
    });

    env.fake.enqueue({ text: 'Looks good.' });
    const before = env.fake.requests.length;
    const result = (await client.callTool({
      name: 'command_review',
      arguments: { args: ['pr-12', 'main'], flags: { tone: 'kind' } },
    })) as CallToolResult;
    expect(textOf(result)).toBe('Looks good.');
    expect(lastUserText(env.fake.requests[before]!)).toBe('Review pr-12 against main, tone: kind.');

    // A missing flag is the tool's error, in words a model can act on; nothing runs.
    const bad = (await client.callTool({ name: 'command_review', arguments: { args: ['pr-12', 'main'] } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('flags');
    expect(env.fake.requests.length).toBe(before + 1);
    await client.close();
  });

  test('a turn that waits on a client answers at once with what it waits for; get_session reads it once answered', async ({ env }) => {
    const { name } = await env.deploy({ customTools: [LOOKUP] });
    const client = await connect(env, name);
    env.fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { orderId: 'A-1' } }] });
    const result = (await client.callTool({ name: 'send_message', arguments: { message: 'Where is A-1?' } })) as CallToolResult;
    const waiting = result.structuredContent as unknown as TurnContent;
    expect(waiting.status).toBe('waiting');
    expect(waiting.waitingFor).toMatchObject({ kind: 'tool', toolCalls: [{ toolCallId: 'call_1', toolName: 'lookup_order' }] });
    expect(textOf(result)).toContain(`POST ${env.api.url}/session/${waiting.sessionId}/tool-result`);

    env.fake.enqueue({ text: 'It ships tomorrow.' });
    const answered = await call(`${env.api.url}/session/${waiting.sessionId}/tool-result`, {
      headers: env.user.auth,
      json: { toolCallId: 'call_1', output: { eta: 'tomorrow' } },
    });
    expect(answered.status).toBe(200);
    await env.waitForEvents(waiting.sessionId, (events) => events.some((event) => event.type === 'turn.completed'));
    const read = (await client.callTool({ name: 'get_session', arguments: { sessionId: waiting.sessionId } })) as CallToolResult;
    expect(textOf(read)).toContain('It ships tomorrow.');
    await client.close();
  });

  test("the client's cancellation aborts the turn", async ({ env }) => {
    const { name } = await env.deploy();
    const client = await connect(env, name);
    env.fake.enqueue({ text: 'never ending ', endless: true, chunkDelayMs: 20 });
    const cancel = new AbortController();
    let sessionId: string | undefined;
    const pending = client.callTool({ name: 'send_message', arguments: { message: 'Go on forever' } }, undefined, {
      signal: cancel.signal,
      onprogress: () => cancel.abort('enough'),
    });
    await expect(pending).rejects.toThrow();
    // The turn the call started: the agent's only session.
    await expect
      .poll(async () => {
        const listed = await call<{ sessions: { id: string }[] }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
        sessionId = listed.body.sessions[0]?.id;
        return sessionId;
      })
      .toBeDefined();
    const events = await env.waitForEvents(sessionId!, (all) => all.some((event) => event.type === 'turn.aborted'));
    expect(events.some((event) => event.type === 'turn.completed')).toBe(false);
    await client.close();
  });

  test("a cancellation counts only from the key that made the call, on the client's Mcp-Session-Id", async ({ env }) => {
    const { name } = await env.deploy();
    const transport = new StreamableHTTPClientTransport(new URL(`${env.api.url}/agent/${name}/mcp`), {
      requestInit: { headers: env.user.auth },
    });
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^mcp_/);
    env.fake.enqueue({ text: 'never ending ', endless: true, chunkDelayMs: 20 });
    const pending = client.callTool({ name: 'send_message', arguments: { message: 'Go on forever' } }, undefined, {
      onprogress: () => undefined,
    });
    void pending.catch(() => undefined);
    let sessionId: string | undefined;
    await expect
      .poll(async () => {
        const found = await call<{ sessions: { id: string }[] }>(`${env.api.url}/agent/${name}/sessions`, { headers: env.user.auth });
        sessionId = found.body.sessions[0]?.id;
        return sessionId;
      })
      .toBeDefined();
    await env.waitForEvents(sessionId!, (all) => all.some((event) => event.type === 'turn.started'));
    // The SDK numbers its requests from 0: initialize, then this call.
    const requestId = 1;
    const cancel = (auth: Record<string, string>) =>
      fetch(`${env.api.url}/agent/${name}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }),
      });

    // Another key of the same user, naming the same client session and request: nothing is aborted.
    const minted = await call<{ key: string }>(`${env.api.url}/key`, { headers: env.user.auth, json: { name: 'other-client' } });
    expect((await cancel({ authorization: `Bearer ${minted.body.key}` })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await env.events(sessionId!)).some((event) => event.type === 'turn.aborted')).toBe(false);

    // The key that made the call: the turn is aborted.
    expect((await cancel(env.user.auth)).status).toBe(202);
    await env.waitForEvents(sessionId!, (all) => all.some((event) => event.type === 'turn.aborted'));
    await client.close();
  });

  test("a read key lists no tool that starts a turn and cannot start one; another user's session is not reachable", async ({ env }) => {
    const { name } = await env.deploy();
    const minted = await call<{ key: string }>(`${env.api.url}/key`, {
      headers: env.user.auth,
      json: { name: 'mcp-read', scopes: ['read'] },
    });
    const reader = await connect(env, name, minted.body.key);
    expect((await reader.listTools()).tools.map((tool) => tool.name)).toEqual(['get_session', 'list_sessions']);
    const refused = (await reader.callTool({ name: 'send_message', arguments: { message: 'Hi' } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('sessions:write');
    await reader.close();

    // Another user: the agent's name is not theirs (404), and a session id of the first user is refused.
    const other = await createTestUser(env.api.db);
    await expect(connect(env, name, other.apiKey)).rejects.toThrow();
    const sessionId = await env.newSession();
    const theirs = `others-${name}`;
    const deployed = await call<{ ok: boolean }>(`${env.api.url}/deploy`, {
      headers: other.auth,
      json: { name: theirs, model: FAKE_MODEL },
    });
    expect(deployed.body.ok).toBe(true);
    const stranger = await connect(env, theirs, other.apiKey);
    const foreign = (await stranger.callTool({ name: 'send_message', arguments: { message: 'Hi', sessionId } })) as CallToolResult;
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toContain('another user');
    const resource = stranger.readResource({ uri: `session://${sessionId}` });
    await expect(resource).rejects.toBeInstanceOf(McpError);
    await stranger.close();
  });

  test("bad input gets the protocol's errors, never a 500", async ({ env }) => {
    const { name } = await env.deploy();
    const client = await connect(env, name);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toBeInstanceOf(McpError);
    const bad = (await client.callTool({ name: 'send_message', arguments: { message: '' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('/message');
    await client.close();

    const url = `${env.api.url}/agent/${name}/mcp`;
    const headers = { ...env.user.auth, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const malformed = await fetch(url, { method: 'POST', headers, body: '{"jsonrpc": "2.0", "method": ' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    const nul = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'send_message', arguments: { message: 'a\u0000b' } },
      }),
    });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toMatchObject({ error: { code: -32602 } });
    const batch = await fetch(url, { method: 'POST', headers, body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]) });
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ error: { code: -32600 } });
    // Another spelling of the path Express routes here is served alike.
    const slashed = await fetch(`${url}/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(slashed.status).toBe(200);
    expect(((await slashed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(3);
    const stream = await fetch(url, { headers: { ...env.user.auth, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
    const unsigned = await fetch(url, { method: 'POST', headers: { ...headers, authorization: '' }, body: '{}' });
    expect(unsigned.status).toBe(401);
  });
});
