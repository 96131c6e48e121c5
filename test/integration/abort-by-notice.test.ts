// An abort, and an interrupting send, reach the streaming model step through the cancelled turn's
// notice: the step's heartbeats here are 5 s apart (a long heartbeat timeout), and the turn ends long
// before the first, so the history's cancellation is the one the step reported on the notice. The
// text streamed before the abort stays, and an interrupting send's turn runs after.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { textFromEvents, type AgentEnv } from '../helpers/harness/agent-env.ts';
import { call } from '../helpers/client/request.ts';
import { decodedHistory } from '../helpers/harness/decoded-history.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { CANCELLED_ON_NOTICE } from '../../activities/turn/confirm-abort.ts';
import type { SessionEvent } from '../../contract/events.ts';

const test = agentTest({ MODEL_STEP_HEARTBEAT_TIMEOUT_MS: '600000' });

const send = (env: AgentEnv, sessionId: string, text: string, query = '') =>
  call<Record<string, unknown>>(`${env.api.url}/session/${sessionId}${query}`, {
    headers: env.user.auth,
    json: { parts: [{ type: 'text', text }] },
  });

const firstAssistantText = (events: SessionEvent[]) => {
  const created = events.find((event) => event.type === 'message.created' && event.message.role === 'assistant');
  return created?.type === 'message.created' ? textFromEvents(events, created.message.id) : '';
};

const ended = (turnId: string) => (events: SessionEvent[]) =>
  events.some(
    (event) => ['turn.completed', 'turn.failed', 'turn.aborted'].includes(event.type) && (event as { turnId?: string }).turnId === turnId,
  );

/** The details the step's activity was cancelled with, read from the session workflow's history (its turns run there). */
async function cancellationDetails(env: AgentEnv, sessionId: string): Promise<unknown[]> {
  const history = (await decodedHistory(await env.worker.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory())) as {
    events: Array<{ activityTaskCanceledEventAttributes?: { details?: { payloads?: Array<{ data?: string }> } } }>;
  };
  const cancelled = history.events.filter((event) => event.activityTaskCanceledEventAttributes);
  expect(cancelled).toHaveLength(1);
  return (cancelled[0]!.activityTaskCanceledEventAttributes!.details?.payloads ?? []).map((payload) =>
    JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')),
  );
}

test('an abort cuts the model call through the notice; the partial text stays', async ({ env }) => {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 3 });
  const turnId = (await send(env, sessionId, 'long story', '?async=1')).body.messageId as string;
  await env.waitForEvents(sessionId, (events) => firstAssistantText(events) === 'partial text so ');
  expect((await call(`${env.api.url}/session/${sessionId}/abort`, { method: 'POST', headers: env.user.auth })).body).toEqual({
    aborted: true,
  });
  const events = await env.waitForEvents(sessionId, ended(turnId));
  expect(events.at(-1)).toMatchObject({ type: 'turn.aborted', turnId });
  expect(firstAssistantText(events)).toBe('partial text so ');
  expect(await cancellationDetails(env, sessionId)).toEqual([CANCELLED_ON_NOTICE]);
});

test('an interrupting send (async) cuts the running turn through the notice, and its own turn runs', async ({ env }) => {
  const sessionId = await env.newSession();
  env.fake.enqueue({ text: ['partial ', 'text ', 'so ', 'far'], stallAfterChunks: 3 }, { text: 'the new answer' });
  await send(env, sessionId, 'long story', '?async=1');
  await env.waitForEvents(sessionId, (events) => firstAssistantText(events) === 'partial text so ');
  const next = (await send(env, sessionId, 'never mind', '?async=1&ifBusy=interrupt')).body.messageId as string;
  const events = await env.waitForEvents(sessionId, ended(next));
  expect(events.filter((event) => event.type.startsWith('turn.') && event.type !== 'turn.started').map((event) => event.type)).toEqual([
    'turn.aborted',
    'turn.completed',
  ]);
  expect(await cancellationDetails(env, sessionId)).toEqual([CANCELLED_ON_NOTICE]);
});
