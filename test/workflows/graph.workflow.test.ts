// A workflow graph's run in the workflow tier: on a Temporal dev server of this file's own, with
// activities written here instead of PostgreSQL and a model. What is checked is how the run walks its
// graph: an agent node is a child turn whose reply the next node's template reads, an approval node
// follows the answer's `next[choice]` or, unanswered, `onExpired`, an end node completes the run, a
// failed turn or a node that is not there fails it, and a cancelled run writes its end: failed with
// its aborted turn's node, or cancelled while an approval (which outlives it) waits. Durations are inputs: an approval node that waits days in production waits a second.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { Activities } from '../../activities/index.ts';
import type { Workflow } from '../../contract/bundle.ts';
import type { ModelStepInput, StepResult } from '../../core/turn-types.ts';
import { FAILURE } from '../../lib/workflow-safe/failures.ts';
import { graphRunWorkflow, type GraphRunInput } from '../../workflows/graph.ts';
import { answerUpdate } from '../../workflows/approval.ts';
import { approvalWorkflowId, graphRunWorkflowId } from '../../lib/workflow-safe/workflow-ids.ts';
import { fastTurnSettings, until, workflowEnv, type WorkflowEnv } from '../helpers/harness/workflow-env.ts';
import type { TurnSettings } from '../../lib/workflow-safe/turn-settings.ts';

let env: WorkflowEnv;
beforeAll(async () => {
  env = await workflowEnv();
});
afterAll(async () => {
  await env?.teardown();
});

let runs = 0;

interface Options {
  /** The reply of each agent node's turn, by the prompt it was given; a thrown error fails the step. */
  reply: (prompt: string) => string;
  /** A step that waits (heartbeating) until it is cancelled. */
  hangs?: (prompt: string) => boolean;
}

/** Activities of one run: the graph it starts on, and `log`, what the run did in order. */
function fakeRunActivities(graph: Workflow, options: Options) {
  const log: string[] = [];
  const prompts = new Map<string, string>();
  const approvals: string[] = [];
  let finished: { status: string; outputs: Record<string, unknown>; error?: string } | undefined;
  const stepResult = (input: ModelStepInput, text: string): StepResult => ({
    messageId: input.messageId,
    text,
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 3, outputTokens: 2 },
    costUsd: null,
    turnUserMessageIds: [input.turnId],
  });
  const activities: Partial<Activities> = {
    startRun: async () => graph,
    async enterNode(input) {
      log.push(`enter ${input.nodeId}`);
    },
    async finishRun(input) {
      finished = { status: input.status, outputs: input.outputs, ...(input.error !== undefined ? { error: input.error } : {}) };
      log.push(`finish ${input.status}`);
    },
    async recordUserMessage(input) {
      const text = input.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
      prompts.set(input.messageId, text);
      log.push(`prompt ${text}`);
      return { seq: prompts.size, turnStarted: false };
    },
    async runModelStep(input) {
      const prompt = prompts.get(input.turnId) ?? '';
      if (options.hangs?.(prompt)) {
        log.push(`step hangs: ${prompt}`);
        const context = Context.current();
        const beat = setInterval(() => context.heartbeat(), 20);
        try {
          await context.cancelled;
        } finally {
          clearInterval(beat);
        }
      }
      try {
        return stepResult(input, options.reply(prompt));
      } catch (error) {
        throw ApplicationFailure.nonRetryable(String((error as Error).message), FAILURE.modelRejected);
      }
    },
    async completeTurn() {
      log.push('turn completed');
    },
    async endTurn(input) {
      log.push(`turn ${input.outcome}`);
    },
    async announceTurnAbort() {},
    async recordApproval(input) {
      approvals.push(input.approvalId);
      log.push(`approval asked: ${input.request.question}`);
      return { expiresAt: input.expiresAt, channels: 0, positions: [], agentName: null, threaded: false };
    },
    async publishWebhookEvent() {
      return { deliveries: [], settings: { retryScheduleMs: [], attemptTimeoutMs: 1_000 } };
    },
    async recordAnswer(input) {
      return { answeredAt: '2026-11-30T12:00:00.000Z', choice: input.choice, note: input.note };
    },
    async recordExpiry() {
      log.push('approval expired');
      return { expiredAt: '2026-11-30T12:00:01.000Z' };
    },
    async observeAnswer() {},
    async skipUnsentDispatches() {},
  };
  return { activities, log, approvals, finished: () => finished };
}

function runInput(settings: TurnSettings = fastTurnSettings()): GraphRunInput {
  runs += 1;
  return {
    runId: `run_fast_${process.pid}_${runs}`,
    userId: 'usr_fast',
    agentId: 'agt_fast',
    revision: 1,
    sessionId: `ses_graph_${process.pid}_${runs}`,
    workflow: 'review',
    input: 'the draft',
    settings,
  };
}

function startRun(taskQueue: string, input: GraphRunInput) {
  return env.client.workflow.start(graphRunWorkflow, { taskQueue, workflowId: graphRunWorkflowId(input.runId), args: [input] });
}

const REVIEW: Workflow = {
  start: 'write',
  nodes: {
    write: { type: 'agent', prompt: 'Write about {{input}}', next: 'check' },
    check: {
      type: 'approval',
      question: 'Publish "{{nodes.write.output}}"?',
      options: ['publish', 'revise'],
      next: { publish: 'done', revise: 'write' },
      onExpired: 'escalate',
    },
    escalate: { type: 'agent', prompt: 'Nobody answered about: {{nodes.write.output}}' },
    done: { type: 'end' },
  },
};

describe('a workflow graph run', () => {
  test("an agent node's reply feeds the approval's question; the answer's choice picks the next node, looping back until the end", async () => {
    let drafts = 0;
    const fake = fakeRunActivities(REVIEW, { reply: () => `draft ${++drafts}` });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput();
      const handle = await startRun(taskQueue, input);
      await until('the first approval', () => fake.approvals.length === 1);
      await env.client.workflow
        .getHandle(approvalWorkflowId(fake.approvals[0]!))
        .executeUpdate(answerUpdate, { args: [{ choice: 'revise', note: 'shorter', via: 'api' }] });
      await until('the second approval', () => fake.approvals.length === 2);
      await env.client.workflow
        .getHandle(approvalWorkflowId(fake.approvals[1]!))
        .executeUpdate(answerUpdate, { args: [{ choice: 'publish', note: null, via: 'api' }] });
      const result = await handle.result();
      expect(result).toEqual({ status: 'completed', outputs: { write: { output: 'draft 2' }, check: { choice: 'publish', note: null } } });
    });
    expect(fake.log).toEqual([
      'enter write',
      'prompt Write about the draft',
      'turn completed',
      'enter check',
      'approval asked: Publish "draft 1"?',
      'enter write',
      'prompt Write about the draft',
      'turn completed',
      'enter check',
      'approval asked: Publish "draft 2"?',
      'enter done',
      'finish completed',
    ]);
    expect(fake.finished()).toMatchObject({ status: 'completed' });
  });

  test('an approval node nobody answers follows onExpired, and a node with nowhere to go completes the run', async () => {
    const fake = fakeRunActivities(REVIEW, { reply: (prompt) => (prompt.startsWith('Nobody') ? 'escalated' : 'draft') });
    const settings = fastTurnSettings({ approvals: { ...fastTurnSettings().approvals, defaultExpiryMs: 1_000 } });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput(settings);
      const result = await (await startRun(taskQueue, input)).result();
      expect(result).toEqual({
        status: 'completed',
        outputs: { write: { output: 'draft' }, check: { expired: true }, escalate: { output: 'escalated' } },
      });
    });
    expect(fake.log).toContain('approval expired');
    expect(fake.log.slice(-3)).toEqual(['prompt Nobody answered about: draft', 'turn completed', 'finish completed']);
  });

  test('a turn that fails fails the run, which writes its end with the reason', async () => {
    const fake = fakeRunActivities(REVIEW, {
      reply: () => {
        throw new Error('The provider refused the request');
      },
    });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput();
      const result = await (await startRun(taskQueue, input)).result();
      expect(result.status).toBe('failed');
    });
    expect(fake.log).toEqual(['enter write', 'prompt Write about the draft', 'turn failed', 'finish failed']);
    expect(fake.finished()?.error).toContain('The provider refused the request');
  });

  test('a node the graph does not have fails the run, naming it', async () => {
    const graph: Workflow = { start: 'write', nodes: { write: { type: 'agent', prompt: 'Write', next: 'missing' } } };
    const fake = fakeRunActivities(graph, { reply: () => 'text' });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput();
      const result = await (await startRun(taskQueue, input)).result();
      expect(result).toEqual({ status: 'failed', outputs: { write: { output: 'text' } } });
    });
    expect(fake.finished()).toMatchObject({ status: 'failed', error: 'The graph has no node "missing"' });
  });

  test('a run cancelled during a turn ends that turn aborted and fails, naming the node', async () => {
    const fake = fakeRunActivities(REVIEW, { reply: () => 'never', hangs: () => true });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput();
      const handle = await startRun(taskQueue, input);
      await until('the step to run', () => fake.log.some((line) => line.startsWith('step hangs')));
      await handle.cancel();
      expect(await handle.result()).toEqual({ status: 'failed', outputs: {} });
    });
    expect(fake.log.slice(-2)).toEqual(['turn aborted', 'finish failed']);
    expect(fake.finished()).toMatchObject({ status: 'failed', error: 'Node "write": the turn ended aborted' });
  });

  test('a run cancelled while an approval node waits writes its end and is cancelled; the approval outlives it', async () => {
    const fake = fakeRunActivities(REVIEW, { reply: () => 'draft' });
    await env.withWorker(fake.activities, async (taskQueue) => {
      const input = runInput();
      const handle = await startRun(taskQueue, input);
      await until('the approval', () => fake.approvals.length === 1);
      await handle.cancel();
      const failure = await handle.result().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      const approval = await env.client.workflow.getHandle(approvalWorkflowId(fake.approvals[0]!)).describe();
      expect(approval.status.name).toBe('RUNNING');
    });
    expect(fake.finished()).toMatchObject({ status: 'failed', error: 'The run was cancelled' });
  });
});
