// A session workflow starts a fresh run after 25 turns (workflows/session.ts TURNS_PER_RUN), so a worker
// taking a session over replays a short history. Turns queued at that moment go with it, in order, and
// every send is answered once.
import { expect, vi } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';

const test = agentTest();

test('the 25th turn ends the run; the turns queued then run in the next one, in order', { timeout: 120_000 }, async ({ env }) => {
  const sessionId = await env.newSession();
  const send = (text: string, query = '') =>
    call<{ messageId: string; reply?: string }>(`${env.api.url}/session/${sessionId}${query}`, {
      headers: env.user.auth,
      json: { parts: [{ type: 'text', text }] },
    });
  env.fake.setHandler((request) => {
    const last = request.body.messages.findLast((message) => message.role === 'user');
    return { text: `re: ${typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content)}` };
  });
  for (let turn = 1; turn <= 24; turn++) expect((await send(`turn ${turn}`)).status).toBe(200);
  // The 25th streams a while, so the next two queue behind it and cross into the next run.
  env.fake.enqueue({ text: ['slow ', 'twenty-', 'fifth'], chunkDelayMs: 300 });
  const last = send('turn 25');
  await env.waitForEvents(sessionId, (events) => events.filter((event) => event.type === 'turn.started').length === 25);
  expect((await send('turn 26', '?async=1')).status).toBe(202);
  expect((await send('turn 27', '?async=1')).status).toBe(202);
  expect((await last).status).toBe(200);

  const events = await env.waitForEvents(sessionId, (all) => all.filter((event) => event.type === 'turn.completed').length === 27, 30_000);
  const users = events.flatMap((event) =>
    event.type === 'message.created' && event.message.role === 'user'
      ? [event.message.parts.map((part) => ('text' in part ? part.text : '')).join('')]
      : [],
  );
  expect(users).toEqual(Array.from({ length: 27 }, (_, index) => `turn ${index + 1}`));
  expect(events.filter((event) => event.type === 'turn.failed' || event.type === 'turn.aborted')).toEqual([]);

  // Temporal's list of runs may lag a moment behind them. The first run started 25 turns, then the next.
  const firstRun = await vi.waitFor(
    async () => {
      const runs = [];
      for await (const run of env.worker.client.workflow.list({ query: `WorkflowId = '${sessionWorkflowId(sessionId)}'` })) runs.push(run);
      const continued = runs.filter((run) => run.status.name === 'CONTINUED_AS_NEW');
      expect(continued).toHaveLength(1);
      return continued[0]!.runId;
    },
    { timeout: 10_000, interval: 200 },
  );
  const history = await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId), firstRun).fetchHistory();
  // Its turns ran in it: one model step each.
  const steps = history.events!.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runModelStep').length;
  expect(steps).toBe(25);
});
