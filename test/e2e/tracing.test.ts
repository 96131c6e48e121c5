// Traces across the processes, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP
// collector: the send's request span in the API, the workflows it started and the activities they
// ran in the worker, one trace from the request to the model step. Without the setting, nothing is
// traced (test/unit/observability-config.test.ts).
import { afterAll, describe, expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { startApiProcess, type ApiProcess } from '../helpers/harness/api-process.ts';
import { startWorkerProcess, type WorkerProcess } from '../helpers/harness/worker-process.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/fakes/otlp-receiver.ts';
import { Client } from '../../sdk/src/index.ts';

// The session workflow's span is exported when it ends: idle for a second, it ends soon after its turn.
const test = agentTest({ SESSION_IDLE_MS: '1000' }, { inProcessWorker: false });
const started: Array<ApiProcess | WorkerProcess> = [];
let collector: OtlpReceiver | undefined;
afterAll(async () => {
  await Promise.all(started.map((process) => process.kill('SIGKILL')));
  await collector?.close();
});

describe('OpenTelemetry traces', () => {
  test(
    'a send is one trace: its API request, the session and turn workflows, the model step activity',
    { timeout: 180_000 },
    async ({ env }) => {
      collector = await startOtlpReceiver();
      const traced = { ...env.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
      const api = await startApiProcess(traced);
      started.push(api, await startWorkerProcess(traced));
      env.fake.setHandler(() => ({ text: ['traced'] }));
      const client = new Client({ baseUrl: api.url, apiKey: env.user.apiKey });
      const { name } = await env.deploy();
      const { id: sessionId } = await client.sessions.create(name);
      await client.sessions.sendAsync(sessionId, 'hello');
      await env.waitForEvents(sessionId, (events) => events.some((event) => event.type === 'turn.completed'), 60_000);

      const trace = await vi.waitFor(
        () => {
          const request = collector!.spans.find((span) => span.service === 'agent-service-api' && span.name === 'POST /session/:id');
          expect(request).toBeDefined();
          const spans = collector!.spans.filter((span) => span.traceId === request!.traceId);
          const names = spans.map((span) => `${span.service} ${span.name}`);
          expect(names).toEqual(
            expect.arrayContaining([
              'agent-service-api SignalWithStartWorkflow:sessionWorkflow',
              'agent-service-worker RunWorkflow:sessionWorkflow',
              // The send was taken in PostgreSQL; the wake-up signal's handler reads it from the inbox.
              'agent-service-worker HandleSignal:sendsWaiting',
              'agent-service-worker RunActivity:takeWaitingSends',
              // The turn runs in the session workflow: its step is the session's activity.
              'agent-service-worker StartActivity:runModelStep',
              'agent-service-worker RunActivity:runModelStep',
            ]),
          );
          return { request: request!, spans };
        },
        { timeout: 30_000, interval: 250 },
      );
      // The model step's span descends from the request's: every parent on the way is in the trace.
      const byId = new Map(trace.spans.map((span) => [span.spanId, span]));
      let span = trace.spans.find((candidate) => candidate.name === 'RunActivity:runModelStep');
      const path: string[] = [];
      while (span && span.spanId !== trace.request.spanId) {
        path.push(span.name);
        span = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      }
      expect(span?.spanId, `the chain ${path.join(' <- ')} does not reach the request`).toBe(trace.request.spanId);
      // A caller's traceparent is continued: the request's span joins the caller's trace, whose id the API answers with.
      const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const read = await fetch(`${api.url}/session/${sessionId}`, {
        headers: { ...env.user.auth, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
      });
      expect(read.status).toBe(200);
      expect(read.headers.get('x-trace-id')).toBe(callerTrace);
      await vi.waitFor(
        () =>
          expect(collector!.spans).toContainEqual(
            expect.objectContaining({ name: 'GET /session/:id', traceId: callerTrace, parentSpanId: '00f067aa0ba902b7' }),
          ),
        { timeout: 30_000, interval: 250 },
      );
    },
  );
});
