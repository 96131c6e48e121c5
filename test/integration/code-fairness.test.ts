// The code sandbox's threads are shared out per user (CODE_SCRIPTS_PER_USER), end to end: one user's
// send whose step runs many endless scripts at once (a step with a call its policy asks about runs all
// its calls together) holds at most its share of the threads, so another user's small script runs at
// once meanwhile instead of waiting behind the flood.
import { expect } from 'vitest';
import { agentTest } from '../helpers/harness/fixtures.ts';
import { call } from '../helpers/client/request.ts';
import { lastUserText } from '../helpers/fakes/fake-model.ts';
import { sessionAs } from '../helpers/harness/sessions-as.ts';
import { createTestUser, type TestUser } from '../helpers/harness/users.ts';
import type { AgentEnv } from '../helpers/harness/agent-env.ts';
import type { SessionEvent } from '../../contract/events.ts';
import { sessionWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { temporal } from '@temporalio/proto';

const test = agentTest();

/** Endless scripts in the flooding step: as many as the sandbox's threads at most (one per core, 2 to 4). */
const FLOOD = 4;
const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

async function eventsOf(env: AgentEnv, who: TestUser, sessionId: string): Promise<SessionEvent[]> {
  const page = await call<{ events: SessionEvent[] }>(`${env.api.url}/session/${sessionId}/events?limit=1000`, { headers: who.auth });
  return page.body.events;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ofType = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

test(
  "another user's small script completes within 2 s while one user's step runs a flood of endless scripts",
  { timeout: 120_000 },
  async ({ env }) => {
    const flooder = await createTestUser(env.api.db);
    const flooding = await sessionAs(env, flooder, { mcps: ['code', 'time'], toolPolicies: { time: { current_time: 'ask' } } });
    const small = await env.newSession({ mcps: ['code'] });
    const loops = Array.from({ length: FLOOD }, (_, index) => ({
      id: `call_loop_${index}`,
      name: 'run_javascript',
      arguments: { code: 'for (;;) {}' },
    }));
    env.fake.setHandler((request) => {
      if (request.body.messages.at(-1)?.role === 'tool') return { text: 'Done.' };
      if (lastUserText(request) === 'flood') return { toolCalls: [{ id: 'call_time', name: 'current_time', arguments: {} }, ...loops] };
      return { toolCalls: [{ id: 'call_add', name: 'run_javascript', arguments: { code: '3 + 3' } }] };
    });
    try {
      const sent = await call(`${env.api.url}/session/${flooding}?async=1`, {
        headers: flooder.auth,
        json: { parts: [{ type: 'text', text: 'flood' }] },
      });
      expect(sent.status).toBe(202);
      // The step's calls run at once (its `ask` call waits for its approval meanwhile): every script's call is running.
      const [requested] = ofType(
        await until(
          'the approval',
          () => eventsOf(env, flooder, flooding),
          (events) => ofType(events, 'approval.requested').length > 0,
        ),
        'approval.requested',
      );
      const handle = env.worker.client.workflow.getHandle(sessionWorkflowId(flooding));
      await until(
        'the flood to run',
        async () => (await handle.describe()).raw.pendingActivities ?? [],
        (pending) =>
          pending.filter((activity) => activity.activityType?.name === 'runBuiltinTool' && activity.state === STARTED).length >= FLOOD,
      );

      const answered = await call<{ status: string; reply: string }>(`${env.api.url}/session/${small}`, {
        headers: env.user.auth,
        json: { parts: [{ type: 'text', text: 'what is 3 + 3?' }] },
      });
      expect(answered.body).toMatchObject({ status: 'completed', reply: 'Done.' });
      const events = await env.events(small);
      const [called] = ofType(events, 'tool.call');
      const [result] = ofType(events, 'tool.result');
      expect(result).toMatchObject({ toolCallId: 'call_add', output: { stdout: '', result: 6 } });
      // From the call to its result: the script got a thread at once (it waited behind the flood before).
      expect(Date.parse(result!.at) - Date.parse(called!.at)).toBeLessThan(2_000);
      // The flood was still running meanwhile.
      expect(ofType(await eventsOf(env, flooder, flooding), 'tool.result')).toEqual([]);

      // Denied, the asked call does not run; the flood's scripts each end at the time limit, and the turn completes.
      const denied = await call(`${env.api.url}/approval/${requested!.approvalId}/answer`, {
        headers: flooder.auth,
        json: { choice: 'deny' },
      });
      expect(denied.status).toBe(200);
      const ended = await until(
        'the flood to end',
        () => eventsOf(env, flooder, flooding),
        (all) => all.some((event) => event.type === 'turn.completed' || event.type === 'turn.failed'),
        90_000,
      );
      expect(ended.at(-1)).toMatchObject({ type: 'turn.completed' });
      const results = ofType(ended, 'tool.result').filter((event) => event.toolName === 'run_javascript');
      expect(results).toHaveLength(FLOOD);
      for (const stopped of results) expect(stopped).toMatchObject({ isError: true, output: expect.stringContaining('time limit') });
    } finally {
      env.fake.setHandler(undefined);
    }
  },
);
