// The token canary over traces: with spans exported, content captured (the most an operator can turn on),
// a user signs in to an OAuth MCP server through a traced API, and a traced worker refreshes the token and
// calls the server. The collector sees the tool's span and result, and no access or refresh token in any
// export request. API and worker run as processes of their own against a local OTLP receiver, as in
// test/e2e/genai-traces.test.ts.
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/fakes/otlp-receiver.ts';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/fakes/oauth-mcp-server.ts';
import { connectMcp } from '../helpers/harness/mcp-sign-in.ts';
import { call } from '../helpers/client/request.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8', SESSION_IDLE_MS: '1000' }, { inProcessWorker: false });
const started: Array<ApiProcess | WorkerProcess> = [];
let collector: OtlpReceiver;
let server: OAuthMcpServer;
beforeAll(async () => {
  collector = await startOtlpReceiver();
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await Promise.all(started.map((process) => process.kill('SIGKILL')));
  await collector?.close();
  await server?.close();
});

test('no access or refresh token reaches a span: sign-in, refresh and call, traced with content', { timeout: 180_000 }, async ({ env }) => {
  const traced = { ...env.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' };
  const api = await startApiProcess(traced);
  const worker = await startWorkerProcess(traced);
  started.push(api, worker);

  const registered = await call(`${api.url}/mcp/desk`, {
    method: 'PUT',
    headers: env.user.auth,
    json: { url: server.url, auth: { type: 'oauth' } },
  });
  expect(registered.status, registered.text).toBeLessThan(300);
  server.signInAs('person-t');
  await connectMcp(env, 'desk', api.url);
  const { name } = await env.deploy({ instructions: 'You look people up.', mcps: ['desk'] });
  // The token the sign-in got stops working: the call refreshes it, on the traced worker.
  server.expireAccessTokens();
  const refreshesBefore = server.tokenRequests.filter((grant) => grant === 'refresh_token').length;

  env.fake.reset();
  env.fake.enqueue({ toolCalls: [{ id: 'c-desk', name: 'whoami', arguments: {} }] }, { text: 'You are person-t.' });
  const session = await call<{ id: string }>(`${api.url}/agent/${name}/session`, { headers: env.user.auth, json: {} });
  const sessionId = session.body.id;
  const sent = await call(`${api.url}/session/${sessionId}?async=1`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text: 'who am I?' }] },
  });
  expect(sent.status).toBe(202);
  await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'), 60_000);
  expect(server.tokenRequests.filter((grant) => grant === 'refresh_token').length).toBeGreaterThan(refreshesBefore);

  // The tool's span arrives with its result: content is captured, so a token in it would be seen.
  await vi.waitFor(
    () => {
      const tool = collector.spans.find(
        (span) => span.name === 'execute_tool whoami' && span.attributes['gen_ai.conversation.id'] === sessionId,
      );
      expect(tool?.attributes['gen_ai.tool.call.result']).toContain('signed in as person-t');
      expect(collector.spans.some((span) => span.service === 'agent-service-api' && span.name.includes('/mcp/:id/connect'))).toBe(true);
    },
    { timeout: 30_000, interval: 250 },
  );
  await Promise.all([api.kill('SIGKILL'), worker.kill('SIGKILL')]);

  const tokens = server.accessTokens();
  expect(tokens.length).toBeGreaterThan(1);
  const exported = collector.bodies.join('\n');
  for (const token of tokens) expect(exported).not.toContain(token);
  expect(exported).not.toMatch(/rt-[0-9a-f-]{36}/);
});
