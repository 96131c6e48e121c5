// Remote MCP servers that misbehave, over HTTP with the fake model: a tool's own error, a JSON-RPC error, a
// call that hangs past MCP_CALL_TIMEOUT_MS, an answer past MCP_RESULT_MAX_BYTES, a server that went away,
// one that holds the connection open after `initialize`, and one echoing the secret it was sent. Each
// reaches the model as a tool error (or a masked text), and the turn completes. The short call timeout is
// this file's alone: the other MCP tests keep the default, so a slow machine does not turn a call into a timeout.
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
});
