// Activities of trigger firings and workflow-graph runs: opening the fresh session, sending its
// first message through the session workflow, and the run's record and events. Each is idempotent.
import { Context } from '@temporalio/activity';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import type { Db, DbClient } from '../store/db.ts';
import { countOpenApprovals } from '../store/user-holdings.ts';
import { inTransaction } from '../store/db.ts';
import type { Bundle, Workflow } from '../lib/bundle/index.ts';
import type { EventData } from '../contract/events.ts';
import { appendEventOnce, appendEvents, lockedSessionHasEvent } from '../store/events.ts';
import { agentState } from '../store/agents.ts';
import { openTriggeredSession, type TriggeredSession } from '../store/triggered-sessions.ts';
import { finishRun, insertRun, setRunNode } from '../store/workflow-runs.ts';
import { sendToSessionWorkflow, type SessionTarget } from '../clients/session.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import type { TriggerRef } from '../lib/workflow-safe/triggers.ts';
import { requestReconcile } from '../clients/schedules.ts';
import { pickRevision } from '../lib/revision-traffic.ts';

export interface RunRef {
  runId: string;
  sessionId: string;
}

export function triggerActivities(deps: {
  db: Db;
  taskQueue: string;
  bundleOf: (agentId: string, revision: number) => Promise<Bundle>;
  /** OPEN_APPROVALS_PER_USER: an approval node past it fails its run rather than open one more approval. */
  openApprovalsPerUser: number;
}) {
  const { db } = deps;
  return {
    /**
     * Before a scheduled firing: does the agent still have this cron trigger? A schedule can outlive
     * its trigger when a reconcile could not run (Temporal was unreachable at a deploy or deletion):
     * then the firing is skipped and a reconcile asked for, so a stale schedule removes itself.
     */
    async checkScheduledFiring(input: {
      agentId: string;
      revision: number;
      trigger: Extract<TriggerRef, { kind: 'cron' }>;
    }): Promise<{ fire: boolean; revision: number }> {
      const agent = await agentState(db, input.agentId);
      const current = agent && !agent.deleted ? await deps.bundleOf(input.agentId, agent.currentRevision) : undefined;
      const same = current?.triggers[input.trigger.index];
      // A conversation follows the traffic shares; a graph workflow runs on the live revision that has it.
      const serving = (live: number) => (same?.workflow || !agent ? live : pickRevision({ revision: live, traffic: agent.traffic }));
      if (agent && !agent.deleted && agent.currentRevision === input.revision) return { fire: true, revision: serving(input.revision) };
      const stillThere =
        same?.kind === 'cron' && same.expression === input.trigger.expression && (same.timezone ?? 'UTC') === input.trigger.timezone;
      await requestReconcile(Context.current().client, deps.taskQueue, input.agentId);
      return stillThere && agent ? { fire: true, revision: serving(agent.currentRevision) } : { fire: false, revision: input.revision };
    },

    async openSessionForTrigger(input: TriggeredSession): Promise<{ created: boolean }> {
      const { created } = await openTriggeredSession(db, input);
      return { created };
    },

    /** The firing's first message, through the session workflow like any send (queued, ordered, durable). */
    async sendFirstMessage(input: {
      session: SessionTarget;
      messageId: string;
      text: string;
      settings: TurnSettings;
    }): Promise<{ seq: number }> {
      const context = Context.current();
      const target = { client: context.client, taskQueue: deps.taskQueue, settings: input.settings };
      // The Update waits on a workflow task of this same task queue: a worker shutting down cancels
      // this activity, and the call must stop too rather than hold the shutdown (it is retried later).
      const { seq } = await context.client.withAbortSignal(context.cancellationSignal, () =>
        sendToSessionWorkflow(target, input.session, {
          messageId: input.messageId,
          parts: [{ type: 'text', text: input.text }],
          ifBusy: 'queue',
        }),
      );
      return { seq };
    },

    /** Records the run (and `workflow.started`) once; answers the graph of the run's revision. */
    async startRun(
      input: RunRef & { userId: string; agentId: string; revision: number; workflow: string; input: string | null },
    ): Promise<Workflow> {
      const bundle = await deps.bundleOf(input.agentId, input.revision);
      const graph = bundle.workflows[input.workflow];
      if (!graph) throw nonRetryable(FAILURE.unknownWorkflow, `Revision ${input.revision} has no workflow "${input.workflow}"`);
      await inTransaction(db, async (client) => {
        // The run is usually recorded with its session already; `workflow.started` is written once either way.
        await insertRun(client, { ...input, id: input.runId });
        await appendEventOnce(
          client,
          input.sessionId,
          { type: 'workflow.started', data: { runId: input.runId, workflow: input.workflow, input: input.input } },
          { runId: input.runId },
        );
      });
      return graph;
    },

    async enterNode(
      input: RunRef & { visit: number; nodeId: string; nodeType: EventData['workflow.node']['nodeType']; outputs: Record<string, unknown> },
    ): Promise<void> {
      await inTransaction(db, async (client) => {
        // Once per visit: a re-executed call finds the event of its visit (nodes may be visited again).
        if (await lockedSessionHasEvent(client, input.sessionId, ['workflow.node'], { runId: input.runId, visit: input.visit })) return;
        if (input.nodeType === 'approval') await refuseApprovalPastLimit(client, input.sessionId, deps.openApprovalsPerUser);
        await setRunNode(client, input.runId, input.nodeId, input.outputs);
        await appendEvents(client, input.sessionId, [
          { type: 'workflow.node', data: { runId: input.runId, visit: input.visit, nodeId: input.nodeId, nodeType: input.nodeType } },
        ]);
      });
    },

    async finishRun(input: RunRef & { status: 'completed' | 'failed'; outputs: Record<string, unknown>; error?: string }): Promise<void> {
      await finishRun(db, input);
    },
  };
}

/**
 * An approval node counts toward OPEN_APPROVALS_PER_USER like ask_my_user and the API: past it the run
 * fails, naming the limit (a graph cannot go on without its answer, as a model can), before its
 * `workflow.node` event, so the run's last node is the one before.
 */
async function refuseApprovalPastLimit(client: DbClient, sessionId: string, limit: number): Promise<void> {
  const { rows } = await client.query<{ user_id: string }>('SELECT user_id FROM sessions WHERE id = $1', [sessionId]);
  if (!rows[0]) return;
  const open = await countOpenApprovals(client, rows[0].user_id);
  if (open >= limit) {
    throw nonRetryable(
      FAILURE.approvalNodeOverLimit,
      `Its user already has ${open} unanswered approvals, the most it may (OPEN_APPROVALS_PER_USER is ${limit}); the approval node was not reached`,
    );
  }
}
