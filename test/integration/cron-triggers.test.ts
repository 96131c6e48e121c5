// Cron triggers: every cron trigger of an agent's current revision is one Temporal Schedule
// (`cron:<agentId>:<index>`), reconciled asynchronously after each deploy and deletion. A firing opens
// a fresh session whose first user message names the trigger and its nominal time, and the turn runs.
// A redeploy updates the schedule in place (an operator's pause is kept); a trigger removed from the
// bundle, or the agent deleted, takes its schedule with it.
import { randomUUID } from 'node:crypto';
import { describe, expect, vi } from 'vitest';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { deleteSchedules } from '../helpers/harness/schedules.ts';

/** Never fires while the tests run (midnight on January 1st, and on January 2nd). */
const NEVER = '0 0 1 1 *';
const NEVER_EITHER = '0 0 2 1 *';
const CATCHUP_WINDOW_MS = 90_000;
const RECONCILE_TIMEOUT_MS = 20_000;

const test = agentTest({ SCHEDULE_CATCHUP_WINDOW_MS: String(CATCHUP_WINDOW_MS) });
const scheduleIds = new Set<string>();
test.afterAll(({ env }) => deleteSchedules(env.worker.client, scheduleIds));

const model = { providerId: 'openai-compatible', modelId: 'fake-model' };

async function deploy(
  env: AgentEnv,
  name: string,
  triggers: Array<Record<string, unknown>>,
): Promise<{ agentId: string; revision: number }> {
  const response = await call<{ ok: boolean; agentId: string; revision: number }>(`${env.api.url}/deploy`, {
    headers: env.user.auth,
    json: { name, model, triggers },
  });
  if (!response.body.ok) throw new Error(`deploy failed: ${response.text}`);
  return { agentId: response.body.agentId, revision: response.body.revision };
}

function cronId(agentId: string, index: number): string {
  const id = `cron:${agentId}:${index}`;
  scheduleIds.add(id);
  return id;
}

async function describeSchedule(env: AgentEnv, id: string): Promise<ScheduleDescription | undefined> {
  try {
    return await env.worker.client.schedule.getHandle(id).describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
}

/** Polls describe until `done` holds for the schedule (undefined: it does not exist). */
async function waitForSchedule(
  env: AgentEnv,
  id: string,
  done: (schedule: ScheduleDescription | undefined) => boolean,
  what: string,
): Promise<ScheduleDescription | undefined> {
  return vi.waitFor(
    async () => {
      const schedule = await describeSchedule(env, id);
      if (!done(schedule)) throw new Error(`schedule ${id}: ${what} did not happen within ${RECONCILE_TIMEOUT_MS} ms`);
      return schedule;
    },
    { timeout: RECONCILE_TIMEOUT_MS, interval: 200 },
  );
}

const exists = (env: AgentEnv, id: string) =>
  waitForSchedule(env, id, (schedule) => schedule !== undefined, 'creation') as Promise<ScheduleDescription>;
const deleted = (env: AgentEnv, id: string) => waitForSchedule(env, id, (schedule) => schedule === undefined, 'deletion');
/** The reconcile of `revision` has reached the schedule: its note names that revision. */
const atRevision = (env: AgentEnv, id: string, revision: number) =>
  waitForSchedule(
    env,
    id,
    (schedule) => schedule?.state.note?.includes(`(revision ${revision})`) ?? false,
    `update to revision ${revision}`,
  ) as Promise<ScheduleDescription>;

/** Still absent after `ms`: for schedules that must never appear. */
async function expectAbsentFor(env: AgentEnv, id: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    expect(await describeSchedule(env, id)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const range = <T extends number | string>(start: T, end: T = start) => ({ start, end, step: 1 });
const ANY_MONTH = range('JANUARY', 'DECEMBER');
const ANY_DAY_OF_WEEK = range('SUNDAY', 'SATURDAY');
/** A five-field cron expression as the server compiles it (second 0, any year) and the SDK decodes it. */
function calendar(fields: { minute: object[]; hour: object[]; dayOfMonth: object[]; month: object[]; dayOfWeek: object[] }) {
  return { second: [range(0)], year: [], comment: '', ...fields };
}
const EVERY_MINUTE = calendar({
  minute: [range(0, 59)],
  hour: [range(0, 23)],
  dayOfMonth: [range(1, 31)],
  month: [ANY_MONTH],
  dayOfWeek: [ANY_DAY_OF_WEEK],
});

function userText(event: SessionEvent | undefined): string | undefined {
  if (event?.type !== 'message.created' || event.message.role !== 'user') return undefined;
  const part = event.message.parts[0];
  return part?.type === 'text' ? part.text : undefined;
}

async function sessionsOf(env: AgentEnv, name: string): Promise<Array<{ id: string; agentId: string; revision: number }>> {
  const response = await call<{ sessions: Array<{ id: string; agentId: string; revision: number }> }>(
    `${env.api.url}/agent/${name}/sessions`,
    {
      headers: env.user.auth,
    },
  );
  expect(response.status).toBe(200);
  return response.body.sessions;
}

describe('cron triggers', () => {
  test('a deploy creates the schedule, which fires within its minute: a fresh session, trigger.fired, the message, the turn', async ({
    env,
  }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    env.fake.enqueue({ text: 'Queue checked: empty.' });
    const deployedAt = Date.now();
    const { agentId, revision } = await deploy(env, name, [{ kind: 'cron', expression: '* * * * *', message: 'Check the queue' }]);
    const id = cronId(agentId, 0);

    const schedule = await exists(env, id);
    // GET /agent shows the trigger with its next firings, as the schedule plans them. The API waits 2 s
    // for Temporal to describe the schedule and shows the trigger without them otherwise: on a loaded
    // machine (every test file at once on 2 cores) a first answer may come without them.
    const readAgent = () =>
      call<{ triggers: Array<{ nextFireTimes?: string[] }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    const agent = await vi.waitFor(
      async () => {
        const read = await readAgent();
        if (read.body.triggers[0]?.nextFireTimes === undefined) throw new Error('no next firings shown yet');
        return read;
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(agent.body.triggers).toEqual([
      { kind: 'cron', expression: '* * * * *', timezone: 'UTC', scheduleId: id, paused: false, nextFireTimes: expect.any(Array) },
    ]);
    const shown = agent.body.triggers[0]!.nextFireTimes!;
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThanOrEqual(5);
    for (const at of shown) expect(new Date(at).getTime() % 60_000).toBe(0);
    expect(new Date(shown[0]!).getTime()).toBeGreaterThan(deployedAt);

    expect(schedule.spec.calendars).toEqual([EVERY_MINUTE]);
    expect(schedule.spec.intervals).toEqual([]);
    expect(schedule.spec.timezone).toBe('UTC');
    expect(schedule.state.note).toBe(`Cron trigger 0 of agent "${name}" (revision 1): * * * * * UTC`);
    expect(schedule.state.paused).toBe(false);
    expect(schedule.policies.overlap).toBe(ScheduleOverlapPolicy.ALLOW_ALL);
    expect(schedule.policies.catchupWindow).toBe(CATCHUP_WINDOW_MS);
    expect(schedule.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'triggerRunWorkflow',
      workflowId: `trigger:${id}`,
      taskQueue: env.worker.taskQueue,
      staticSummary: schedule.state.note,
    });
    expect(schedule.action.args).toEqual([
      expect.objectContaining({
        userId: env.user.userId,
        agentId,
        revision,
        trigger: { kind: 'cron', index: 0, expression: '* * * * *', timezone: 'UTC' },
        payload: 'Check the queue',
      }),
    ]);
    // Every next firing is a whole minute.
    expect(schedule.info.nextActionTimes.length).toBeGreaterThan(0);
    for (const at of schedule.info.nextActionTimes) expect(at.getTime() % 60_000).toBe(0);

    // It fires at the next whole minute after the schedule exists: at most ~60 s from now.
    const sessions = await vi.waitFor(
      async () => {
        const opened = await sessionsOf(env, name);
        if (!opened.length) throw new Error('the cron trigger did not fire within 75 s');
        return opened;
      },
      { timeout: 75_000, interval: 500 },
    );
    // Newest first: the oldest is the first firing.
    const session = sessions.at(-1)!;
    expect(session).toMatchObject({ agentId, revision });
    const events = await env.waitForEvents(session.id, (all) => all.some((event) => event.type === 'turn.completed'), 30_000);

    expect(events[0]).toMatchObject({ seq: 1, type: 'session.created', agentId, revision });
    const fired = events[1]!;
    expect(fired).toMatchObject({ seq: 2, type: 'trigger.fired', sessionId: session.id });
    if (fired.type !== 'trigger.fired') throw new Error('unreachable');
    expect(fired.trigger).toEqual({ kind: 'cron', index: 0, expression: '* * * * *', timezone: 'UTC' });
    expect(fired.workflow).toBeUndefined();
    expect(fired.firedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
    const firedAt = new Date(fired.firedAt).getTime();
    // The first whole minute after the deploy (or the one after it, had the reconcile run late).
    expect(firedAt).toBeGreaterThan(deployedAt);
    expect(firedAt).toBeLessThanOrEqual(Math.ceil(deployedAt / 60_000) * 60_000 + 60_000);

    const message = events[2]!;
    expect(message).toMatchObject({ seq: 3, type: 'message.created', message: { role: 'user' } });
    const text = userText(message)!;
    expect(text.startsWith(`Scheduled trigger fired: cron "* * * * *" (UTC), scheduled for ${fired.firedAt}`)).toBe(true);
    expect(text).toBe(`Scheduled trigger fired: cron "* * * * *" (UTC), scheduled for ${fired.firedAt}.\n\nCheck the queue`);
    expect(events.map((event) => event.type).filter((type) => type === 'message.created' || type.startsWith('turn.'))).toEqual([
      'message.created',
      'turn.started',
      'message.created',
      'turn.completed',
    ]);
    const reply = events.filter((event) => event.type === 'message.created').at(1);
    expect(reply).toMatchObject({ message: { role: 'assistant' } });
    const session200 = await call<{ messages: Array<{ role: string; parts: Array<{ type: string; text?: string }> }> }>(
      `${env.api.url}/session/${session.id}`,
      { headers: env.user.auth },
    );
    expect(session200.body.messages.map((m) => [m.role, m.parts.find((part) => part.type === 'text')?.text])).toEqual([
      ['user', text],
      ['assistant', 'Queue checked: empty.'],
    ]);

    // The model saw the cron message as the user's turn.
    const request = env.fake.requests.find((r) => JSON.stringify(r.body.messages).includes(`scheduled for ${fired.firedAt}`));
    expect(request).toBeDefined();

    // The schedule records that firing at the same nominal time.
    const after = await env.worker.client.schedule.getHandle(id).describe();
    const action = after.info.recentActions.find((recent) => recent.scheduledAt.toISOString() === fired.firedAt);
    expect(action).toBeDefined();
    expect(action!.action.workflow.workflowId).toMatch(new RegExp(`^trigger:${id}-`));

    // Done: deleting the agent stops the firings.
    expect((await call(`${env.api.url}/agent/${name}`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    await deleted(env, id);
  }, 150_000);

  test('a redeploy with a new expression and time zone updates the same schedule', async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [{ kind: 'cron', expression: NEVER, message: 'Yearly' }]);
    const id = cronId(agentId, 0);
    const before = await exists(env, id);
    expect(before.spec.calendars).toEqual([
      calendar({ minute: [range(0)], hour: [range(0)], dayOfMonth: [range(1)], month: [range('JANUARY')], dayOfWeek: [ANY_DAY_OF_WEEK] }),
    ]);

    const second = await deploy(env, name, [{ kind: 'cron', expression: '0 9 * * 1', timezone: 'Europe/Paris', message: 'Weekly report' }]);
    expect(second).toEqual({ agentId, revision: 2 });
    const after = await atRevision(env, id, 2);
    expect(after.spec.timezone).toBe('Europe/Paris');
    expect(after.spec.calendars).toEqual([
      calendar({ minute: [range(0)], hour: [range(9)], dayOfMonth: [range(1, 31)], month: [ANY_MONTH], dayOfWeek: [range('MONDAY')] }),
    ]);
    expect(after.state.note).toBe(`Cron trigger 0 of agent "${name}" (revision 2): 0 9 * * 1 Europe/Paris`);
    expect(after.action.args).toEqual([
      expect.objectContaining({
        revision: 2,
        trigger: { kind: 'cron', index: 0, expression: '0 9 * * 1', timezone: 'Europe/Paris' },
        payload: 'Weekly report',
      }),
    ]);
    // Mondays at 09:00 in Paris, whatever the offset of the day.
    const paris = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Paris',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hour12: false,
    });
    expect(after.info.nextActionTimes.length).toBeGreaterThan(0);
    for (const at of after.info.nextActionTimes) expect(paris.format(at)).toBe('Mon 09:00:00');
    // The same schedule, not a second one.
    await expectAbsentFor(env, cronId(agentId, 1), 500);
  });

  test("schedules follow the live revision: a staged revision's cron waits for its promote, and a rollback takes it away", async ({
    env,
  }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, []);
    const staged = await call<{ revision: number; liveRevision: number }>(`${env.api.url}/deploy?stage=1`, {
      headers: env.user.auth,
      json: { name, model, triggers: [{ kind: 'cron', expression: NEVER, message: 'Yearly' }] },
    });
    expect(staged.body).toMatchObject({ revision: 2, liveRevision: 1 });
    const id = cronId(agentId, 0);
    await expectAbsentFor(env, id, 1500);

    const promoted = await call(`${env.api.url}/agent/${name}/promote`, { headers: env.user.auth, json: { revision: 2 } });
    expect(promoted.status, promoted.text).toBe(200);
    const schedule = await atRevision(env, id, 2);
    expect(schedule.action.args).toEqual([expect.objectContaining({ revision: 2, payload: 'Yearly' })]);

    const rolledBack = await call(`${env.api.url}/agent/${name}/rollback`, { method: 'POST', headers: env.user.auth });
    expect(rolledBack.status, rolledBack.text).toBe(200);
    await deleted(env, id);
  });

  test("an operator's pause is kept across a redeploy", async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [{ kind: 'cron', expression: NEVER }]);
    const id = cronId(agentId, 0);
    await exists(env, id);
    const handle = env.worker.client.schedule.getHandle(id);
    await handle.pause('paused by an operator');
    expect((await handle.describe()).state.paused).toBe(true);

    await deploy(env, name, [{ kind: 'cron', expression: NEVER_EITHER }]);
    const after = await atRevision(env, id, 2);
    expect(after.spec.calendars).toEqual([
      calendar({ minute: [range(0)], hour: [range(0)], dayOfMonth: [range(2)], month: [range('JANUARY')], dayOfWeek: [ANY_DAY_OF_WEEK] }),
    ]);
    expect(after.state.paused).toBe(true);
    // GET /agent says so, and shows no firing to come. As above, a first answer on a loaded machine may come
    // without the schedule's state (the API waits 2 s for Temporal to describe it).
    const agent = await vi.waitFor(
      async () => {
        const read = await call<{ triggers: Array<{ paused?: boolean }> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
        if (read.body.triggers[0]?.paused === undefined) throw new Error('no schedule state shown yet');
        return read;
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(agent.body.triggers).toEqual([expect.objectContaining({ kind: 'cron', paused: true, nextFireTimes: [] })]);
  });

  test('a trigger removed from the bundle takes its schedule with it', async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [{ kind: 'cron', expression: NEVER }]);
    const id = cronId(agentId, 0);
    await exists(env, id);
    await deploy(env, name, []);
    await deleted(env, id);
    const agent = await call<{ triggers: unknown[]; revision: number }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    expect(agent.body).toMatchObject({ revision: 2, triggers: [] });
  });

  test('deleting the agent deletes its schedule', async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [{ kind: 'cron', expression: NEVER }]);
    const id = cronId(agentId, 0);
    await exists(env, id);
    expect((await call(`${env.api.url}/agent/${name}`, { method: 'DELETE', headers: env.user.auth })).status).toBe(204);
    await deleted(env, id);
    expect((await call(`${env.api.url}/agent/${name}`, { headers: env.user.auth })).status).toBe(404);
  });

  test('a schedule that outlived its agent (its reconcile never ran) removes itself at its next firing', async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [{ kind: 'cron', expression: NEVER }]);
    const id = cronId(agentId, 0);
    await exists(env, id);
    // As if the deletion's reconcile could not be asked for (Temporal unreachable at that moment).
    await env.api.db.query('UPDATE agents SET deleted_at = now() WHERE id = $1', [agentId]);
    await env.worker.client.schedule.getHandle(id).trigger();
    await deleted(env, id);
    const { rows } = await env.api.db.query<{ count: string }>('SELECT count(*) FROM sessions WHERE agent_id = $1', [agentId]);
    expect(Number(rows[0]!.count)).toBe(0);
  });

  test('two cron triggers are two schedules; dropping the second leaves only the first', async ({ env }) => {
    const name = `agent-${randomUUID().slice(0, 8)}`;
    const { agentId } = await deploy(env, name, [
      { kind: 'cron', expression: NEVER, message: 'first' },
      { kind: 'cron', expression: NEVER_EITHER, timezone: 'America/New_York', message: 'second' },
    ]);
    const first = cronId(agentId, 0);
    const second = cronId(agentId, 1);
    const agent = await call<{ triggers: Array<Record<string, unknown>> }>(`${env.api.url}/agent/${name}`, { headers: env.user.auth });
    // The schedules' state (`paused`, `nextFireTimes`) is shown once the reconcile after the deploy has created
    // them, which may be before or after this read; the test above covers it.
    const listed = agent.body.triggers.map(({ paused: _paused, nextFireTimes: _times, ...trigger }) => trigger);
    expect(listed).toEqual([
      { kind: 'cron', expression: NEVER, timezone: 'UTC', scheduleId: first },
      { kind: 'cron', expression: NEVER_EITHER, timezone: 'America/New_York', scheduleId: second },
    ]);
    expect((await exists(env, first)).state.note).toBe(`Cron trigger 0 of agent "${name}" (revision 1): ${NEVER} UTC`);
    const secondSchedule = await exists(env, second);
    expect(secondSchedule.state.note).toBe(`Cron trigger 1 of agent "${name}" (revision 1): ${NEVER_EITHER} America/New_York`);
    expect(secondSchedule.spec.timezone).toBe('America/New_York');
    expect(secondSchedule.action.args).toEqual([
      expect.objectContaining({
        trigger: { kind: 'cron', index: 1, expression: NEVER_EITHER, timezone: 'America/New_York' },
        payload: 'second',
      }),
    ]);
    await expectAbsentFor(env, cronId(agentId, 2), 500);

    await deploy(env, name, [{ kind: 'cron', expression: NEVER, message: 'first' }]);
    await deleted(env, second);
    // The pass that deleted the second updated the first before.
    const remaining = await describeSchedule(env, first);
    expect(remaining?.state.note).toBe(`Cron trigger 0 of agent "${name}" (revision 2): ${NEVER} UTC`);
    expect(remaining?.action.args).toEqual([expect.objectContaining({ revision: 2, payload: 'first' })]);
  });
});
