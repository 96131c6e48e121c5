// The fast tier: the session and turn workflows on a real Temporal dev server of this file's own,
// with activities written here instead of PostgreSQL and a model. What is checked is the workflows'
// wiring of the rules (core/): sends queue and run one turn at a time, ifBusy=reject is refused while
// busy, an interrupt cancels the running turn and runs first, an abort ends a turn once, steering joins
// the running turn or runs as a turn of its own, `session.completed` only when nothing waits, an
// idle session ends; a structured reply is retried then fails, a client call nobody answers times out.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Context, CancelledFailure } from '@temporalio/activity';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Activities } from '../../activities/index.ts';
import { STEP_PLACE_FREED, type CompactionResult, type ModelStepInput, type StepResult, type ToolCall } from '../../core/turn-types.ts';
import { compactionPlaceKey, toolPlaceKey } from '../../core/place-keys.ts';
import { NO_CLIENT_RESULT } from '../../core/client-tool-calls.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import {
  abortUpdate,
  compactUpdate,
  sendsWaitingSignal,
  sendUpdate,
  sessionWorkflow,
  stateQuery,
  type SendInput,
} from '../../workflows/session.ts';
import type { InboxItem, InboxSend } from '../../core/session-turns.ts';
import { turnWorkflow } from '../../workflows/turn.ts';
import { fastTurnSettings, until, workflowEnv, type WorkflowEnv } from '../helpers/harness/workflow-env.ts';
import type { TurnSettings } from '../../lib/workflow-safe/turn-settings.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const ref = { userId: 'usr_fast', agentId: 'agt_fast', revision: 1 };
let sessions = 0;

/**
 * Activities for a session: messages get seqs in the order recorded, and each model step waits until
 * the test releases its turn (or the step is cancelled). `log` is what happened, in order.
 */
function fakeSessionActivities() {
  const log: string[] = [];
  let seq = 0;
  /** Steps running now, and the most that ever ran at once. */
  let running = 0;
  let mostAtOnce = 0;
  const releases = new Map<string, () => void>();
  const released = new Set<string>();
  /** Steering messages recorded into each turn. */
  const joined = new Map<string, string[]>();
  const published: string[] = [];

  const activities: Partial<Activities> = {
    async recordUserMessage(input) {
      seq += 1;
      if (input.joinTurnId) {
        joined.set(input.joinTurnId, [...(joined.get(input.joinTurnId) ?? []), input.messageId]);
        log.push(`recorded ${input.messageId} into ${input.joinTurnId}`);
        return { seq, turnStarted: false, joined: true };
      }
      log.push(`recorded ${input.messageId}`);
      return { seq, turnStarted: false };
    },
    async runModelStep(input: ModelStepInput): Promise<StepResult> {
      // What this step reads: the turn's own message and the steering recorded into it before it started.
      const read = [input.turnId, ...(joined.get(input.turnId) ?? [])];
      log.push(`step ${input.turnId} ${input.step}`);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 20);
      try {
        await Promise.race([
          new Promise<void>((resolve) => (released.has(input.turnId) ? resolve() : releases.set(input.turnId, resolve))),
          context.cancelled,
        ]);
      } catch (error) {
        log.push(`step ${input.turnId} cancelled`);
        throw error instanceof CancelledFailure ? error : new CancelledFailure(String(error));
      } finally {
        clearInterval(beat);
        running -= 1;
      }
      released.delete(input.turnId);
      return {
        messageId: input.messageId,
        text: `reply to ${input.turnId}`,
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: null,
        turnUserMessageIds: read,
      };
    },
    async completeTurn(input) {
      seq += 1;
      log.push(`completed ${input.turnId}`);
    },
    async endTurn(input) {
      seq += 1;
      log.push(`ended ${input.turnId} ${input.outcome}`);
    },
    async announceTurnAbort() {},
    async turnEndSeq() {
      return seq;
    },
    async publishWebhookEvent(input) {
      published.push(`${input.type} ${(input.data as { turnId?: string }).turnId}`);
      return { deliveries: [], settings: { retryScheduleMs: [], attemptTimeoutMs: 1_000 } };
    },
  };
  return {
    activities,
    log,
    published,
    mostAtOnce: () => mostAtOnce,
    /** Lets the running step of `turnId` answer (or its next one, if it has not started yet). */
    release(turnId: string) {
      const resolve = releases.get(turnId);
      releases.delete(turnId);
      if (resolve) resolve();
      else released.add(turnId);
    },
  };
}

async function startSession(taskQueue: string, settings: TurnSettings = fastTurnSettings()) {
  const sessionId = `ses_fast${++sessions}`;
  const handle = await env.client.workflow.start(sessionWorkflow, {
    taskQueue,
    workflowId: `session:${sessionId}`,
    args: [{ sessionId, ...ref, settings }],
  });
  const send = (messageId: string, ifBusy: SendInput['ifBusy'] = 'queue') =>
    handle.executeUpdate(sendUpdate, { args: [{ messageId, parts: [{ type: 'text', text: messageId }], ifBusy }] });
  return { handle, send };
}

describe('the session workflow', () => {
  test('sends made while a turn runs queue behind it and run one at a time, in order; only the last turn is idle', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { handle, send } = await startSession(taskQueue);
      await send('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      await send('m2');
      await send('m3');
      expect(await handle.query(stateQuery)).toEqual({ runningTurnId: 'm1', queued: ['m2', 'm3'] });
      fake.release('m1');
      await until('the second turn', () => fake.log.includes('step m2 1'));
      fake.release('m2');
      fake.release('m3');
      await until('the third turn to complete', () => fake.log.includes('completed m3'));
      await until('its publish', () => fake.published.length > 0);
    });
    expect(fake.log.filter((line) => line.startsWith('step '))).toEqual(['step m1 1', 'step m2 1', 'step m3 1']);
    expect(fake.mostAtOnce()).toBe(1);
    // m2 and m3 were recorded before m1 wrote its end: not idle then; nothing waited behind m3.
    expect(fake.published).toEqual(['session.completed m3']);
  });

  test('ifBusy=reject is refused while a turn runs and accepted once the session is idle', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { send } = await startSession(taskQueue);
      await send('m1', 'reject');
      await until('the first step', () => fake.log.includes('step m1 1'));
      const refused = await send('m2', 'reject').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: FAILURE.sessionBusy });
      fake.release('m1');
      await until('the turn to complete', () => fake.log.includes('completed m1'));
      await until('the session to be idle', () => fake.published.length === 1);
      await send('m3', 'reject');
      fake.release('m3');
      await until('the accepted turn', () => fake.log.includes('completed m3'));
    });
    expect(fake.log).not.toContain('recorded m2');
  });

  test('an interrupt cancels the running turn, which ends aborted once, and runs ahead of the turns queued', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { send } = await startSession(taskQueue);
      await send('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      await send('m2');
      await send('m3', 'interrupt');
      await until('the interrupting turn', () => fake.log.includes('step m3 1'));
      fake.release('m3');
      fake.release('m2');
      await until('the queued turn', () => fake.log.includes('completed m2'));
    });
    expect(fake.log.filter((line) => line.startsWith('ended ') || line.startsWith('completed ') || line.startsWith('step '))).toEqual([
      'step m1 1',
      'step m1 cancelled',
      'ended m1 aborted',
      'step m3 1',
      'completed m3',
      'step m2 1',
      'completed m2',
    ]);
  });

  test('an abort cancels the running turn once: a second abort finds nothing to cancel', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { handle, send } = await startSession(taskQueue);
      await send('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      expect(await handle.executeUpdate(abortUpdate)).toEqual({ aborted: true });
      expect(await handle.executeUpdate(abortUpdate)).toEqual({ aborted: false });
      await until('the aborted end', () => fake.log.includes('ended m1 aborted'));
      expect(await handle.executeUpdate(abortUpdate)).toEqual({ aborted: false });
      // The session goes on: nothing was published for the aborted turn, and the next send runs.
      await send('m2');
      fake.release('m2');
      await until('the next turn', () => fake.log.includes('completed m2'));
      await until('its publish', () => fake.published.length > 0);
    });
    expect(fake.log.filter((line) => line === 'ended m1 aborted')).toHaveLength(1);
    expect(fake.published).toEqual(['session.completed m2']);
  });

  test('a steering message joins the running turn, whose next step reads it', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { send } = await startSession(taskQueue);
      await send('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      expect(await send('s1', 'steer')).toMatchObject({ joined: { turnId: 'm1', userMessageId: 'm1' } });
      fake.release('m1');
      await until('a second step of the same turn', () => fake.log.includes('step m1 2'));
      fake.release('m1');
      await until('the turn to complete', () => fake.log.includes('completed m1'));
      await until('its publish', () => fake.published.length === 1);
    });
    expect(fake.log.filter((line) => line.startsWith('step '))).toEqual(['step m1 1', 'step m1 2']);
    expect(fake.published).toEqual(['session.completed m1']);
  });

  test('a steering message the turn never read (it had no step left) runs as a turn of its own', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { send } = await startSession(taskQueue, fastTurnSettings({ maxSteps: 1 }));
      await send('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      await send('s1', 'steer');
      fake.release('m1');
      await until('the steering message as its own turn', () => fake.log.includes('step s1 1'));
      fake.release('s1');
      await until('its end', () => fake.log.includes('completed s1'));
    });
    expect(fake.log.filter((line) => line.startsWith('step ') || line.startsWith('completed '))).toEqual([
      'step m1 1',
      'completed m1',
      'step s1 1',
      'completed s1',
    ]);
  });

  test('a session with nothing to do ends once idle, and the same send seen twice runs its turn once', async () => {
    const fake = fakeSessionActivities();
    await env.withWorker(fake.activities, async (taskQueue) => {
      const { handle, send } = await startSession(taskQueue, fastTurnSettings({ sessionIdleMs: 300 }));
      fake.release('m1');
      await send('m1');
      await send('m1');
      await handle.result();
    });
    expect(fake.log.filter((line) => line.startsWith('step '))).toEqual(['step m1 1']);
  });
});

/**
 * The sends the API took (store/session-inbox.ts), kept here: a row leaves when its turn ends, as the
 * turn's end deletes it in PostgreSQL. `failNextTake` makes one take fail (its retry must lose nothing).
 */
function fakeInbox(fake: ReturnType<typeof fakeSessionActivities>) {
  let seq = 100;
  let failNextTake = false;
  const rows: InboxSend[] = [];
  const takes: string[][] = [];
  const leave = (turnId: string) => {
    for (let index = rows.length - 1; index >= 0; index--) if (rows[index]!.turnId === turnId) rows.splice(index, 1);
  };
  const activities: Partial<Activities> = {
    ...fake.activities,
    async takeWaitingSends() {
      if (failNextTake) {
        failNextTake = false;
        throw new Error('the database went away');
      }
      const taken = [...rows].sort((a, b) => a.seq - b.seq);
      takes.push(taken.map((row) => row.messageId));
      return taken;
    },
    async completeTurn(input) {
      leave(input.turnId);
      await fake.activities.completeTurn!(input);
    },
    async endTurn(input) {
      leave(input.turnId);
      await fake.activities.endTurn!(input);
    },
  };
  return {
    activities,
    takes,
    failNextTake: () => (failNextTake = true),
    /** A send taken by the API: its row, with the next seq. */
    take(messageId: string, ifBusy: InboxSend['ifBusy'] = 'queue', turnId = messageId): void {
      rows.push({ messageId, seq: ++seq, turnId, ifBusy });
    },
  };
}

describe('sends taken by the API (the inbox), the session workflow woken by a signal', () => {
  async function startWoken(taskQueue: string, settings: TurnSettings = fastTurnSettings()) {
    const sessionId = `ses_inbox${++sessions}`;
    const handle = await env.client.workflow.start(sessionWorkflow, {
      taskQueue,
      workflowId: `session:${sessionId}`,
      args: [{ sessionId, ...ref, settings }],
    });
    return { handle, wake: (messageId: string) => handle.signal(sendsWaitingSignal, { messageId }) };
  }

  test('wake-ups that arrive out of order, twice, or not at all for a send: every turn runs once, in the order of the seqs', async () => {
    const fake = fakeSessionActivities();
    const inbox = fakeInbox(fake);
    await env.withWorker(inbox.activities, async (taskQueue) => {
      const { handle, wake } = await startWoken(taskQueue);
      inbox.take('m1');
      await wake('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      // m2 and m3 taken; m3's wake-up arrives first, m2's never: the take reads both, in seq order.
      inbox.take('m2');
      inbox.take('m3');
      await wake('m3');
      await wake('m3');
      await until('both queued', async () => (await handle.query(stateQuery)).queued.length === 2);
      expect(await handle.query(stateQuery)).toEqual({ runningTurnId: 'm1', queued: ['m2', 'm3'] });
      // A take that fails is retried, and its retry misses nothing.
      inbox.take('m4');
      inbox.failNextTake();
      await wake('m4');
      await until('m4 queued', async () => (await handle.query(stateQuery)).queued.includes('m4'));
      for (const turn of ['m1', 'm2', 'm3', 'm4']) fake.release(turn);
      await until('the last turn to complete', () => fake.log.includes('completed m4'));
    });
    expect(fake.log.filter((line) => line.startsWith('step '))).toEqual(['step m1 1', 'step m2 1', 'step m3 1', 'step m4 1']);
    expect(fake.log.filter((line) => line.startsWith('completed '))).toEqual([
      'completed m1',
      'completed m2',
      'completed m3',
      'completed m4',
    ]);
  });

  test('a steering message the API joined to the running turn is read by its next step; an interrupt cancels that turn, whose unfinished steering runs first, then the interrupt, then the queue', async () => {
    const fake = fakeSessionActivities();
    const inbox = fakeInbox(fake);
    await env.withWorker(inbox.activities, async (taskQueue) => {
      const { wake } = await startWoken(taskQueue);
      inbox.take('m1');
      await wake('m1');
      await until('the first step', () => fake.log.includes('step m1 1'));
      inbox.take('s1', 'steer', 'm1');
      await wake('s1');
      await until('the steering taken', () => inbox.takes.some((take) => take.includes('s1')));
      fake.release('m1');
      await until('a second step of the same turn', () => fake.log.includes('step m1 2'));
      inbox.take('m2');
      inbox.take('m3', 'interrupt');
      await wake('m3');
      // The aborted turn did not finish with the steering message: it runs as a turn of its own, first.
      await until('the steering as a turn', () => fake.log.includes('step s1 1'));
      fake.release('s1');
      await until('the interrupting turn', () => fake.log.includes('step m3 1'));
      fake.release('m3');
      fake.release('m2');
      await until('the queued turn', () => fake.log.includes('completed m2'));
    });
    expect(fake.log.filter((line) => line.startsWith('ended ') || line.startsWith('completed ') || line.startsWith('step '))).toEqual([
      'step m1 1',
      'step m1 2',
      'step m1 cancelled',
      'ended m1 aborted',
      'step s1 1',
      'completed s1',
      'step m3 1',
      'completed m3',
      'step m2 1',
      'completed m2',
    ]);
  });

  test('a session woken with nothing new ends once idle; a send taken later starts a new run that runs it', async () => {
    const fake = fakeSessionActivities();
    const inbox = fakeInbox(fake);
    await env.withWorker(inbox.activities, async (taskQueue) => {
      const { handle, wake } = await startWoken(taskQueue, fastTurnSettings({ sessionIdleMs: 300 }));
      fake.release('m1');
      inbox.take('m1');
      await wake('m1');
      await wake('m1');
      await handle.result();
      inbox.take('m2');
      fake.release('m2');
      await env.client.workflow.signalWithStart(sessionWorkflow, {
        taskQueue,
        workflowId: handle.workflowId,
        args: [{ sessionId: handle.workflowId.slice('session:'.length), ...ref, settings: fastTurnSettings({ sessionIdleMs: 300 }) }],
        signal: sendsWaitingSignal,
        signalArgs: [{ messageId: 'm2' }],
      });
      await until('the second turn', () => fake.log.includes('completed m2'));
    });
    expect(fake.log.filter((line) => line.startsWith('step '))).toEqual(['step m1 1', 'step m2 1']);
  });
});

test(
  'a run whose history grows long with its turns continues as new between turns, before its 25th turn, and runs every turn once',
  { timeout: 120_000 },
  async () => {
    const fake = fakeSessionActivities();
    const turns = 25;
    const steps: Record<string, number> = {};
    // Every turn is three tool round trips and an answer: about 40 events of history each.
    const activities: Partial<Activities> = {
      ...fake.activities,
      async runModelStep(input) {
        steps[input.turnId] = (steps[input.turnId] ?? 0) + 1;
        const calling = input.step < 4;
        return {
          messageId: input.messageId,
          text: calling ? '' : `reply to ${input.turnId}`,
          toolCalls: calling ? [{ toolCallId: `call_${input.step}`, toolName: 'current_time', input: {} }] : [],
          finishReason: calling ? 'tool-calls' : 'stop',
          usage: { inputTokens: 1, outputTokens: 1 },
          costUsd: null,
          turnUserMessageIds: [input.turnId],
        };
      },
      runBuiltinTool: async (input) => ({
        type: 'tool-result',
        toolCallId: input.call.toolCallId,
        toolName: input.call.toolName,
        output: 'noon',
      }),
      recordToolResults: async () => {},
    };
    let firstRun = '';
    await env.withWorker(activities, async (taskQueue) => {
      const { handle, send } = await startSession(taskQueue, fastTurnSettings({ sessionIdleMs: 500 }));
      firstRun = handle.firstExecutionRunId;
      for (let turn = 1; turn <= turns; turn++) await send(`m${turn}`);
      // A hundred model steps and seventy-five tool calls, one after another.
      await until('every turn', () => fake.log.filter((line) => line.startsWith('completed ')).length === turns, 90_000);
    });
    const first = await env.client.workflow.getHandle(`session:ses_fast${sessions}`, firstRun).fetchHistory();
    const events = first.events ?? [];
    const stepsInFirstRun = events.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'runModelStep',
    ).length;
    expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(stepsInFirstRun / 4).toBeGreaterThan(0);
    expect(stepsInFirstRun / 4).toBeLessThan(turns);
    expect(Object.values(steps)).toEqual(Array.from({ length: turns }, () => 4));
  },
);

describe('the turn workflow', () => {
  function stepResult(input: ModelStepInput, extra: Partial<StepResult>): StepResult {
    return {
      messageId: input.messageId,
      text: 'reply',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 10, outputTokens: 5 },
      costUsd: 0.25,
      ...extra,
    };
  }
  const turnInput = (turnId: string, settings: TurnSettings) => ({ sessionId: `ses_turn_${turnId}`, ...ref, turnId, settings });

  test('a structured reply that stays invalid is recorded each time, then fails the turn with what was wrong', async () => {
    const invalid: Array<{ attempt: number; attemptsLeft: number }> = [];
    const ends: string[] = [];
    await env.withWorker(
      {
        runModelStep: async (input) => stepResult(input, { replyErrors: ['/answer: must be number'], replyRetries: 1 }),
        recordInvalidReply: async (input) => void invalid.push({ attempt: input.attempt, attemptsLeft: input.attemptsLeft }),
        endTurn: async (input) => void ends.push(`${input.outcome}: ${input.error}`),
      },
      async (taskQueue) => {
        const run = env.client.workflow.execute(turnWorkflow, {
          taskQueue,
          workflowId: 'turn:invalid',
          args: [turnInput('t1', fastTurnSettings())],
        });
        await expect(run).rejects.toThrow();
      },
    );
    expect(invalid).toEqual([
      { attempt: 1, attemptsLeft: 1 },
      { attempt: 2, attemptsLeft: 0 },
    ]);
    expect(ends).toEqual(['failed: The reply did not match jsonReply.schema after 2 attempts: /answer: must be number']);
  });

  test('a client tool call nobody answers gets the timeout result, and the turn goes on with the totals of its steps', async () => {
    const call: ToolCall = { toolCallId: 'call_1', toolName: 'pick_color', input: {}, executor: 'client' };
    const recorded: unknown[] = [];
    const completed: unknown[] = [];
    await env.withWorker(
      {
        runModelStep: async (input) =>
          stepResult(input, input.step === 1 ? { toolCalls: [call], finishReason: 'tool-calls' } : { text: 'done' }),
        setClientToolWait: async () => {},
        // The close is decided in PostgreSQL: nothing was stored before it.
        closeClientToolCalls: async () => [],
        recordToolResults: async (input) => void recorded.push(...input.results),
        completeTurn: async (input) => void completed.push({ usage: input.usage, costUsd: input.costUsd }),
      },
      async (taskQueue) => {
        const outcome = await env.client.workflow.execute(turnWorkflow, {
          taskQueue,
          workflowId: 'turn:client-timeout',
          args: [turnInput('t2', fastTurnSettings({ clientToolTimeoutMs: 200 }))],
        });
        expect(outcome).toMatchObject({ status: 'completed', reply: 'done', usage: { inputTokens: 20, outputTokens: 10 }, costUsd: 0.5 });
      },
    );
    expect(recorded).toEqual([
      { type: 'tool-result', toolCallId: 'call_1', toolName: 'pick_color', output: NO_CLIENT_RESULT, isError: true },
    ]);
    expect(completed).toEqual([{ usage: { inputTokens: 20, outputTokens: 10 }, costUsd: 0.5 }]);
  });
  test('an answer PostgreSQL took before the timeout closed the wait is the result, though its hand-over never came', async () => {
    const call: ToolCall = { toolCallId: 'call_1', toolName: 'pick_color', input: {}, executor: 'client' };
    const recorded: unknown[] = [];
    const announced: unknown[] = [];
    const closed: unknown[] = [];
    await env.withWorker(
      {
        runModelStep: async (input) =>
          stepResult(input, input.step === 1 ? { toolCalls: [call], finishReason: 'tool-calls' } : { text: 'done' }),
        setClientToolWait: async () => {},
        // The API stored the answer; its wake-up was lost, so the turn learns of it only at its close.
        closeClientToolCalls: async (input) => {
          closed.push(input);
          return [{ messageId: input.messageId, toolCallId: 'call_1', output: { color: 'teal' } }];
        },
        announceToolResult: async (input) => void announced.push(input),
        recordToolResults: async (input) => void recorded.push(...input.results),
        completeTurn: async () => {},
      },
      async (taskQueue) => {
        const outcome = await env.client.workflow.execute(turnWorkflow, {
          taskQueue,
          workflowId: 'turn:client-late-handover',
          args: [turnInput('t3', fastTurnSettings({ clientToolTimeoutMs: 200 }))],
        });
        expect(outcome).toMatchObject({ status: 'completed', reply: 'done' });
      },
    );
    expect(closed).toEqual([expect.objectContaining({ toolCallIds: ['call_1'] })]);
    const result = { type: 'tool-result', toolCallId: 'call_1', toolName: 'pick_color', output: { color: 'teal' } };
    expect(announced).toEqual([expect.objectContaining({ result })]);
    expect(recorded).toEqual([result]);
  });

  test('an answer the API took before the turn waits is handed over by the session, taken once the turn waits, and announced once however often it comes', async () => {
    const fake = fakeSessionActivities();
    const call: ToolCall = { toolCallId: 'call_1', toolName: 'pick_color', input: {}, executor: 'client' };
    const recorded: unknown[] = [];
    const announced: unknown[] = [];
    let inbox: InboxItem[] = [];
    let takes = 0;
    let wake: (() => Promise<void>) | undefined;
    await env.withWorker(
      {
        ...fake.activities,
        runModelStep: async (input) => {
          if (input.step !== 1) return stepResult(input, { text: 'done' });
          // The API took the answer as soon as the call was readable: the session reads it from the inbox
          // (twice, as a sweep's second wake-up would) before the step's own result reaches the turn.
          // Each wake-up is taken before the next is sent (two takes, not one for both), and the step's
          // result follows them: the session hands the answer over before the turn waits for it.
          inbox = [{ toolAnswer: { messageId: input.messageId, toolCallId: 'call_1', output: 'teal' } }];
          await wake!();
          await until('the first take', () => takes === 1);
          await wake!();
          await until('the second take', () => takes === 2);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return stepResult(input, { toolCalls: [call], finishReason: 'tool-calls' });
        },
        takeWaitingSends: async () => {
          if (inbox.length > 0) takes += 1;
          return inbox;
        },
        setClientToolWait: async () => {},
        announceToolResult: async (input) => void announced.push(input.result),
        recordToolResults: async (input) => void recorded.push(...input.results),
      },
      async (taskQueue) => {
        const { handle, send } = await startSession(taskQueue, fastTurnSettings({ clientToolTimeoutMs: 60_000, sessionIdleMs: 200 }));
        wake = () => handle.signal(sendsWaitingSignal, { messageId: 'call_1' });
        await send('m1');
        await handle.result();
      },
    );
    expect(fake.log).toContain('completed m1');
    const result = { type: 'tool-result', toolCallId: 'call_1', toolName: 'pick_color', output: 'teal' };
    expect(announced).toEqual([result]);
    expect(recorded).toEqual([result]);
  });
});

describe("places among the user's running work", () => {
  /** Answers `queued` the first time `key` asks, and then has a place given back to it (STEP_PLACE_FREED naming it). */
  function placeOnSecondAsk(workflowId: () => string) {
    const refused = new Set<string>();
    return (key: string): boolean => {
      if (refused.has(key)) return true;
      refused.add(key);
      setTimeout(
        () =>
          void env.client.workflow
            .getHandle(workflowId())
            .signal(STEP_PLACE_FREED, key)
            .catch(() => undefined),
        50,
      );
      return false;
    };
  }
  const compacted = (summaryMessageId: string): CompactionResult => ({
    compacted: true,
    summaryMessageId,
    tokensBefore: 100,
    tokensAfter: 10,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: null,
  });
  /** Timers of the queue's waits (10 s) in a history that fired: a wait no wake-up ended. */
  async function firedQueueWaits(workflowId: string): Promise<number> {
    const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const waits = new Set(
      events.flatMap((event) =>
        Number(event.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) === 10
          ? [event.timerStartedEventAttributes!.timerId]
          : [],
      ),
    );
    expect(waits.size).toBeGreaterThan(0);
    return events.filter((event) => waits.has(event.timerFiredEventAttributes?.timerId)).length;
  }

  test("a turn's compaction and tool calls that find no place wait until a wake-up names them, then ask again and run", async () => {
    const workflowId = 'turn:places';
    const hasPlace = placeOnSecondAsk(() => workflowId);
    const asked: string[] = [];
    const recorded: unknown[] = [];
    const calls: ToolCall[] = [
      { toolCallId: 'call_a', toolName: 'current_time', input: {} },
      { toolCallId: 'call_b', toolName: 'current_time', input: {} },
    ];
    const result = (input: ModelStepInput, extra: Partial<StepResult>): StepResult => ({
      messageId: input.messageId,
      text: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: null,
      ...extra,
    });
    await env.withWorker(
      {
        completeTurn: async () => {},
        runModelStep: async (input) => {
          if (input.step === 1 && !input.compacted) {
            return result(input, { compact: { reason: 'threshold', tokensBefore: 100, windowTokens: 1_000, attempts: 1 } });
          }
          return input.step === 1 ? result(input, { toolCalls: calls, finishReason: 'tool-calls' }) : result(input, { text: 'done' });
        },
        compactConversation: async (input) => {
          asked.push(`compaction mayQueue=${input.mayQueue}`);
          return hasPlace(compactionPlaceKey(input.sessionId, input.summaryMessageId))
            ? compacted(input.summaryMessageId)
            : { queued: true };
        },
        runBuiltinTool: async (input) => {
          asked.push(`${input.call.toolCallId} mayQueue=${input.mayQueue} user=${input.userId} turn=${input.turnId}`);
          if (!hasPlace(toolPlaceKey(input.sessionId, input.messageId!, input.call.toolCallId))) return { queued: true };
          return { type: 'tool-result', toolCallId: input.call.toolCallId, toolName: input.call.toolName, output: 'noon' };
        },
        recordToolResults: async (input) => void recorded.push(...input.results),
      },
      async (taskQueue) => {
        const outcome = await env.client.workflow.execute(turnWorkflow, {
          taskQueue,
          workflowId,
          args: [{ sessionId: 'ses_places', ...ref, turnId: 't_places', settings: fastTurnSettings() }],
        });
        expect(outcome).toMatchObject({ status: 'completed', reply: 'done' });
      },
    );
    const asks = (what: string) => `${what} mayQueue=true user=${ref.userId} turn=t_places`;
    expect(asked).toEqual([
      'compaction mayQueue=true',
      'compaction mayQueue=true',
      asks('call_a'),
      asks('call_a'),
      asks('call_b'),
      asks('call_b'),
    ]);
    expect(recorded).toEqual(
      calls.map((call) => ({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: 'noon' })),
    );
    // Each wait ended with its wake-up, none with its timer.
    expect(await firedQueueWaits(workflowId)).toBe(0);
  });

  test('a compaction asked for between turns that finds no place waits for a wake-up in the session, then runs', async () => {
    let workflowId = '';
    const hasPlace = placeOnSecondAsk(() => workflowId);
    const asked: Array<{ mayQueue?: boolean; wakeWorkflowId?: string }> = [];
    await env.withWorker(
      {
        ...fakeSessionActivities().activities,
        compactConversation: async (input) => {
          asked.push({ mayQueue: input.mayQueue, wakeWorkflowId: input.wakeWorkflowId });
          return hasPlace(compactionPlaceKey(input.sessionId, input.summaryMessageId))
            ? compacted(input.summaryMessageId)
            : { queued: true };
        },
      },
      async (taskQueue) => {
        const { handle } = await startSession(taskQueue);
        workflowId = handle.workflowId;
        expect(await handle.executeUpdate(compactUpdate)).toMatchObject({ compacted: true, tokensAfter: 10 });
      },
    );
    expect(asked).toEqual([
      { mayQueue: true, wakeWorkflowId: workflowId },
      { mayQueue: true, wakeWorkflowId: workflowId },
    ]);
    expect(await firedQueueWaits(workflowId)).toBe(0);
  });
});
