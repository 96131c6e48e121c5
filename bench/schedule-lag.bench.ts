// How late a cron firing starts, measured from the schedule's nominal time (`trigger.fired.firedAt`)
// to the stored `at` of the fired session's first events: `session.created` and `trigger.fired`
// (one transaction, so one timestamp), the first user `message.created` (the cron message, sent
// through the session workflow) and `turn.completed` (zero-delay fake model). Beside it, the floor:
// Temporal's own lag, the schedule's `takenAt` (when it started the workflow) minus the nominal time.
//
// Minute-resolution cron would take too long to sample, so the agent is deployed with a cron trigger
// that never fires, the service reconciles its schedule, and the bench creates a schedule of its own
// with that schedule's action and policies (the service's triggerRunWorkflow, input and task queue)
// but an interval spec of a few seconds. Every `at` is PostgreSQL's now() and every nominal time is
// the Temporal server's clock; both run on this machine.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { ScheduleNotFoundError, type Client, type ScheduleDescription, type ScheduleExecutionResult } from '@temporalio/client';
import type { SessionEvent } from '../contract/events.ts';
import type { Benchmark } from './benchmark.ts';
import { startAgentStack, type AgentStack } from './agent-stack.ts';
import { expectStatus, timedRequest } from './http-json.ts';
import { summarize } from './measure.ts';
import { sessionWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

const INTERVAL_S = 5;
const FIRINGS = 20;
/** The first firings (schedule, session and turn code paths still cold) are not counted. */
const WARMUP = 2;
const REPLY = 'Queue checked.';
const MESSAGE = 'Check the queue';
/** Never fires while the bench runs: the service's own schedule only lends its action. */
const NEVER = '0 0 1 1 *';
const RECONCILE_TIMEOUT_MS = 30_000;

interface Firing {
  sessionId: string;
  nominal: number;
  sessionCreatedMs: number;
  triggerFiredMs: number;
  userMessageMs: number;
  turnCompletedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function describeOrUndefined(client: Client, id: string): Promise<ScheduleDescription | undefined> {
  try {
    return await client.schedule.getHandle(id).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
}

async function waitForSchedule(client: Client, id: string, present: boolean): Promise<ScheduleDescription | undefined> {
  const deadline = Date.now() + RECONCILE_TIMEOUT_MS;
  for (;;) {
    const schedule = await describeOrUndefined(client, id);
    if ((schedule !== undefined) === present) return schedule;
    if (Date.now() > deadline)
      throw new Error(`schedule ${id} was not ${present ? 'created' : 'deleted'} within ${RECONCILE_TIMEOUT_MS} ms`);
    await sleep(200);
  }
}

async function getJson<T>(stack: AgentStack, agent: http.Agent, path: string, what: string): Promise<T> {
  return expectStatus(await timedRequest<T>(agent, `${stack.url}${path}`, { headers: stack.headers, timeoutMs: 30_000 }), 200, what);
}

async function allEvents(stack: AgentStack, agent: http.Agent, sessionId: string): Promise<SessionEvent[]> {
  const page = await getJson<{ events: SessionEvent[]; next: number | null }>(
    stack,
    agent,
    `/session/${sessionId}/events?after=0&limit=1000`,
    'GET /session/<id>/events',
  );
  if (page.next !== null) throw new Error(`session ${sessionId} has more events than one page`);
  return page.events;
}

/** The firing's figures once its turn has completed; undefined while it is still running. */
function measure(sessionId: string, events: SessionEvent[], expression: string): Firing | undefined {
  const ended = events.find((event) => event.type === 'turn.completed' || event.type === 'turn.failed' || event.type === 'turn.aborted');
  if (!ended) return undefined;
  if (ended.type !== 'turn.completed') throw new Error(`session ${sessionId}: the turn ended with ${ended.type}`);
  const [created, fired] = events;
  if (created?.type !== 'session.created') throw new Error(`session ${sessionId} does not start with session.created`);
  if (fired?.type !== 'trigger.fired' || fired.trigger.kind !== 'cron' || fired.trigger.expression !== expression)
    throw new Error(`session ${sessionId}: second event ${JSON.stringify(fired)}`);
  const user = events.find((event) => event.type === 'message.created' && event.message.role === 'user');
  if (user?.type !== 'message.created') throw new Error(`session ${sessionId} has no user message`);
  const part = user.message.parts[0];
  const expected = `Scheduled trigger fired: cron "${expression}" (UTC), scheduled for ${fired.firedAt}.\n\n${MESSAGE}`;
  if (part?.type !== 'text' || part.text !== expected)
    throw new Error(`session ${sessionId}: unexpected first message ${JSON.stringify(part)}`);
  const nominal = Date.parse(fired.firedAt);
  if (nominal % (INTERVAL_S * 1000) !== 0) throw new Error(`session ${sessionId}: nominal time ${fired.firedAt} is off the interval`);
  const since = (event: SessionEvent) => Date.parse(event.at) - nominal;
  return {
    sessionId,
    nominal,
    sessionCreatedMs: since(created),
    triggerFiredMs: since(fired),
    userMessageMs: since(user),
    turnCompletedMs: since(ended),
  };
}

const scheduleLag: Benchmark = {
  name: 'schedule-lag',
  description: `schedule nominal time → the fired session's first events, a ${INTERVAL_S} s interval schedule with the service's cron action, ${FIRINGS} firings`,
  needs: ['postgres', 'temporal'],
  async run({ infra, log }) {
    const stack = await startAgentStack(infra, log, { fake: { defaultScript: { text: REPLY } } });
    const client = stack.temporal.client;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const name = `bench-${randomBytes(6).toString('hex')}`;
    let benchScheduleId: string | undefined;
    let deployed = false;
    let serviceScheduleId: string | undefined;
    const fired = new Set<string>();
    try {
      const body = JSON.stringify({
        name,
        model: { providerId: 'openai-compatible', modelId: 'fake-model' },
        instructions: 'Be brief.',
        triggers: [{ kind: 'cron', expression: NEVER, message: MESSAGE }],
      });
      expectStatus(
        await timedRequest(agent, `${stack.url}/deploy`, { method: 'POST', headers: stack.headers, body, timeoutMs: 30_000 }),
        201,
        'POST /deploy',
      );
      deployed = true;
      const view = await getJson<{ id: string; triggers: Array<{ scheduleId?: string }> }>(
        stack,
        agent,
        `/agent/${name}`,
        'GET /agent/<name>',
      );
      serviceScheduleId = view.triggers[0]?.scheduleId;
      if (!serviceScheduleId) throw new Error(`GET /agent/${name} lists no schedule id`);
      const service = (await waitForSchedule(client, serviceScheduleId, true))!;
      log(`the service reconciled ${serviceScheduleId}`);

      // The service's action, as it built it; only the workflow id prefix and the spec are the bench's.
      benchScheduleId = `bench-schedule-lag:${view.id}`;
      const { action: serviceAction, policies } = service;
      await client.schedule.create({
        scheduleId: benchScheduleId,
        spec: { intervals: [{ every: `${INTERVAL_S}s` }] },
        action: {
          type: 'startWorkflow',
          workflowType: serviceAction.workflowType,
          workflowId: `trigger:${benchScheduleId}`,
          taskQueue: serviceAction.taskQueue,
          args: serviceAction.args,
          ...(serviceAction.typedSearchAttributes ? { typedSearchAttributes: serviceAction.typedSearchAttributes } : {}),
          // Read back from Temporal, the summary is a plain string again: marked anew, as the service writes it.
          ...(serviceAction.staticSummary ? readableMetadata({ summary: serviceAction.staticSummary }) : {}),
        },
        policies: { overlap: policies.overlap, catchupWindow: policies.catchupWindow },
        state: { note: 'schedule-lag benchmark' },
      });
      const createdAt = Date.now();
      const total = WARMUP + FIRINGS;
      log(`created ${benchScheduleId}, every ${INTERVAL_S} s; waiting for ${total} firings (≈ ${total * INTERVAL_S} s)`);

      const firings = new Map<string, Firing>();
      // Temporal's own record of each action, by nominal time: the floor.
      const taken = new Map<number, ScheduleExecutionResult>();
      const deadline = createdAt + (total + 6) * INTERVAL_S * 1000 + 60_000;
      while (firings.size < total) {
        if (Date.now() > deadline) throw new Error(`only ${firings.size} of ${total} firings completed in time`);
        await sleep(1000);
        const { sessions } = await getJson<{ sessions: Array<{ id: string }> }>(
          stack,
          agent,
          `/agent/${name}/sessions?limit=200`,
          'GET /agent/<name>/sessions',
        );
        for (const { id } of sessions) {
          fired.add(id);
          if (firings.has(id)) continue;
          const firing = measure(id, await allEvents(stack, agent, id), NEVER);
          if (!firing) continue;
          firings.set(id, firing);
          if (firings.size % 5 === 0) log(`${firings.size}/${total}: session.created ${firing.sessionCreatedMs} ms after its nominal time`);
        }
        // recentActions keeps the last 10; one look a second misses none at one firing per INTERVAL_S.
        const described = await client.schedule.getHandle(benchScheduleId).describe();
        for (const action of described.info.recentActions) taken.set(action.scheduledAt.getTime(), action);
      }

      const ordered = [...firings.values()].sort((a, b) => a.nominal - b.nominal);
      const measured = ordered.slice(WARMUP, WARMUP + FIRINGS);
      // Consecutive nominal times INTERVAL_S apart: no firing was skipped or doubled.
      const gaps = ordered.slice(1).map((firing, i) => (firing.nominal - ordered[i]!.nominal) / 1000);
      const irregular = gaps.filter((gap) => gap !== INTERVAL_S).length;
      const floor = measured.map((firing) => {
        const action = taken.get(firing.nominal);
        if (!action) throw new Error(`the schedule has no record of the firing at ${new Date(firing.nominal).toISOString()}`);
        return action.takenAt.getTime() - action.scheduledAt.getTime();
      });
      const pick = (key: Exclude<keyof Firing, 'sessionId' | 'nominal'>) => summarize(measured.map((firing) => firing[key]));
      const sessionCreated = pick('sessionCreatedMs');
      const scheduler = summarize(floor);
      return {
        firings: FIRINGS,
        warmup: WARMUP,
        intervalSeconds: INTERVAL_S,
        method:
          `an interval schedule (every ${INTERVAL_S} s) with the action and policies the service built for a cron trigger ` +
          "(triggerRunWorkflow, the agent's input); per firing, stored event `at` (PostgreSQL now()) minus the nominal " +
          'time (trigger.fired.firedAt); floor: the schedule’s own takenAt minus scheduledAt (Temporal alone)',
        irregularGaps: irregular,
        schedulerTakenAt: scheduler,
        sessionCreated,
        triggerFired: pick('triggerFiredMs'),
        firstUserMessage: pick('userMessageMs'),
        turnCompleted: pick('turnCompletedMs'),
        serviceOverSchedulerP50Ms: Math.round((sessionCreated.p50Ms - scheduler.p50Ms) * 1000) / 1000,
      };
    } finally {
      if (benchScheduleId) {
        await client.schedule
          .getHandle(benchScheduleId)
          .delete()
          .catch((error: unknown) => log(`could not delete ${benchScheduleId}: ${(error as Error).message}`));
      }
      if (deployed) {
        // The service deletes its own schedule (a reconcile pass, while the worker still runs).
        const deleted = await timedRequest(agent, `${stack.url}/agent/${name}`, {
          method: 'DELETE',
          headers: stack.headers,
          timeoutMs: 30_000,
        });
        if (deleted.status !== 204) log(`DELETE /agent/${name} answered ${deleted.status}`);
        else if (serviceScheduleId) {
          await waitForSchedule(client, serviceScheduleId, false).catch((error: unknown) => log((error as Error).message));
        }
      }
      // Each firing's session workflow would otherwise wait SESSION_IDLE_MS for a next send.
      await Promise.all(
        [...fired].map((id) =>
          client.workflow
            .getHandle(sessionWorkflowId(id))
            .terminate('benchmark finished')
            .catch(() => undefined),
        ),
      );
      agent.destroy();
      await stack.close();
    }
  },
};

export default scheduleLag;
