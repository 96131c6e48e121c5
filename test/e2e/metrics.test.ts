// Metrics as an operator scrapes them: the API process and a worker process, each with /metrics on
// its own port (METRICS_PORT, WORKER_METRICS_PORT), parsed as Prometheus parses them, after a real
// turn against the fake model, an SSE stream, an approval answered and a webhook delivered. The API's
// public port never serves them.
import { afterAll, describe, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/fakes/webhook-receiver.ts';
import { call } from '../helpers/client/request.ts';
import { scrape } from '../helpers/metrics/scrape.ts';
import { freePort } from '../../dev/ports.ts';
import { Client } from '../../sdk/src/index.ts';

const test = agentTest({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' }, { inProcessWorker: false });
const started: Array<ApiProcess | WorkerProcess> = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  await Promise.all(started.map((process) => process.kill('SIGKILL')));
  await receiver?.close();
});

describe('/metrics', () => {
  test(
    'the API and the worker count turns (one queued behind another), their tokens, an SSE stream, an approval answered and a delivery; the public port serves none of it',
    { timeout: 180_000 },
    async ({ env }) => {
      const [apiMetricsPort, workerMetricsPort] = [await freePort(), await freePort()];
      const api = await startApiProcess({ ...env.env, METRICS_PORT: String(apiMetricsPort) });
      started.push(api);
      started.push(await startWorkerProcess({ ...env.env, WORKER_METRICS_PORT: String(workerMetricsPort) }));
      const apiMetrics = `http://127.0.0.1:${apiMetricsPort}/metrics`;
      const workerMetrics = `http://127.0.0.1:${workerMetricsPort}/metrics`;

      // Not on the API's port, with a key or without.
      expect((await call(`${api.url}/metrics`)).status).toBe(404);
      expect((await call(`${api.url}/metrics`, { headers: env.user.auth })).status).toBe(404);

      receiver = await startWebhookReceiver();
      const hook = await call(`${api.url}/webhook`, { headers: env.user.auth, json: { url: receiver.url, events: ['session.completed'] } });
      expect(hook.status).toBe(201);

      // The first turn streams for a few seconds, so the second send waits behind it.
      let calls = 0;
      env.fake.setHandler(() => ({
        text: ++calls === 1 ? Array.from({ length: 60 }, (_, index) => `word${index} `) : ['Hello ', 'there.'],
        chunkDelayMs: 100,
        usage: { promptTokens: 11, completionTokens: 7 },
      }));
      const client = new Client({ baseUrl: api.url, apiKey: env.user.apiKey });
      const { name } = await env.deploy();
      const { id: sessionId } = await client.sessions.create(name);

      // An SSE stream held open through the API process while the turn runs.
      const stop = new AbortController();
      let streaming = false;
      let completed = 0;
      const following = (async () => {
        for await (const event of client.events(sessionId, { follow: true, signal: stop.signal })) {
          if (event.type === 'message.part.delta') streaming = true;
          if (event.type === 'turn.completed' && ++completed === 2) break;
        }
      })().catch((error: unknown) => {
        if ((error as Error).name !== 'APIUserAbortError') throw error;
      });
      await client.sessions.sendAsync(sessionId, 'hello');
      await vi.waitFor(() => expect(streaming).toBe(true), { timeout: 60_000, interval: 50 });
      await client.sessions.sendAsync(sessionId, 'and then');
      const during = await scrape(apiMetrics);
      expect(during.value('agent_service_sse_connections_open')).toBeGreaterThanOrEqual(1);
      // Counted from PostgreSQL for the whole service (other files' turns may add to them).
      await vi.waitFor(
        async () => {
          const busy = await scrape(workerMetrics);
          expect(busy.value('agent_service_turns', { state: 'running' })).toBeGreaterThanOrEqual(1);
          expect(busy.value('agent_service_turns', { state: 'queued' })).toBeGreaterThanOrEqual(1);
        },
        { timeout: 30_000, interval: 100 },
      );
      await following;
      await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.completed').length === 2, 60_000);

      // An approval through the API: waiting while unanswered, then answered.
      const asked = await call<{ id: string }>(`${api.url}/approval`, { headers: env.user.auth, json: { question: 'Ship it?' } });
      expect(asked.status).toBe(201);
      const waiting = await scrape(workerMetrics);
      expect(waiting.value('agent_service_approvals_waiting')).toBeGreaterThanOrEqual(1);
      // Read from PostgreSQL at the scrape: a fraction, well below 1 here.
      expect(waiting.value('agent_service_postgres_notify_queue_usage')).toBeGreaterThanOrEqual(0);
      expect(waiting.value('agent_service_postgres_notify_queue_usage')).toBeLessThan(0.5);
      const answered = await call(`${api.url}/approval/${asked.body.id}/answer`, { headers: env.user.auth, json: { choice: 'yes' } });
      expect(answered.status).toBe(200);

      await receiver.waitForRequests(1, 60_000);
      const worker = await vi.waitFor(
        async () => {
          const scraped = await scrape(workerMetrics);
          expect(scraped.value('agent_service_webhook_delivery_attempts_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
          // Counted where the approval's workflow takes the answer the API stored, a moment after the 200.
          expect(scraped.value('agent_service_approvals_ended_total', { outcome: 'answered' })).toBe(1);
          return scraped;
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(worker.value('agent_service_turn_duration_seconds_count', { outcome: 'completed' })).toBe(2);
      expect(worker.value('agent_service_turn_duration_seconds_bucket', { outcome: 'completed', le: '+Inf' })).toBe(2);
      // The first turn took its 60 pieces at 100 ms apart: at least 5 s, not in the 1 s bucket.
      expect(worker.value('agent_service_turn_duration_seconds_bucket', { outcome: 'completed', le: '1' })).toBeLessThanOrEqual(1);
      expect(worker.value('agent_service_turn_first_token_seconds_count')).toBe(2);
      expect(worker.types.get('agent_service_turn_first_token_seconds')).toBe('histogram');
      expect(worker.value('agent_service_model_tokens_total', { provider: 'openai-compatible', kind: 'input' })).toBe(22);
      expect(worker.value('agent_service_model_tokens_total', { provider: 'openai-compatible', kind: 'output' })).toBe(14);
      expect(worker.types.get('agent_service_model_cost_usd_total')).toBe('counter');
      expect(worker.value('agent_service_approvals_ended_total', { outcome: 'answered' })).toBe(1);
      for (const state of ['running', 'waiting', 'queued']) expect(worker.find('agent_service_turns', { state })).toHaveLength(1);
      expect(worker.value('agent_service_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      // The Temporal SDK's own worker metrics, in the same scrape.
      expect(worker.samples.some((sample) => sample.name.startsWith('temporal_') && sample.labels.task_queue === env.env.TASK_QUEUE)).toBe(
        true,
      );

      const apiScraped = await scrape(apiMetrics);
      const send = { method: 'POST', route: '/session/:id', status: '202' };
      expect(apiScraped.value('agent_service_http_requests_total', send)).toBe(2);
      expect(apiScraped.value('agent_service_http_request_duration_seconds_count', send)).toBe(2);
      expect(apiScraped.value('agent_service_http_request_duration_seconds_bucket', { ...send, le: '+Inf' })).toBe(2);
      expect(apiScraped.value('agent_service_http_requests_total', { method: 'POST', route: '/approval/:ref/answer', status: '200' })).toBe(
        1,
      );
      expect(apiScraped.value('agent_service_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(2);
      expect(apiScraped.value('agent_service_sse_connections_open')).toBe(0);
      expect(apiScraped.value('agent_service_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      // Routes by template: no id of a path reaches a label.
      expect(apiScraped.text).not.toContain(sessionId);
      stop.abort();
    },
  );
});
