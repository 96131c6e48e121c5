// Activities of trigger firings and workflow-graph runs: opening the fresh session, sending its
// first message through the session workflow, and the run's record and events. Each is idempotent.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../store/db.ts';
import { inTransaction } from '../store/db.ts';
import type { Bundle, Workflow } from '../lib/bundle/index.ts';
import type { EventData } from '../lib/events.ts';
import { appendEvents } from '../store/events.ts';
import { setSessionStatus } from '../store/sessions.ts';
import { openTriggeredSession, type TriggeredSession } from '../store/triggered-sessions.ts';
import { endRun, insertRun, setRunNode } from '../store/workflow-runs.ts';
import { sendToSessionWorkflow, type SessionTarget } from '../lib/session-client.ts';
import type { TurnSettings } from '../workflows/turn-types.ts';

export interface RunRef {
  runId: string;
  sessionId: string;
}

export function triggerActivities(deps: { db: Db; taskQueue: string; bundleOf: (agentId: string, revision: number) => Promise<Bundle> }) {
  const { db } = deps;
  return {
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
      if (!graph)
        throw ApplicationFailure.nonRetryable(`Revision ${input.revision} has no workflow "${input.workflow}"`, 'UnknownWorkflow');
      await inTransaction(db, async (client) => {
        // The run is usually recorded with its session already; `workflow.started` is written once either way.
        await insertRun(client, { ...input, id: input.runId });
        await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [input.sessionId]);
        const { rowCount } = await client.query(
          `SELECT 1 FROM events WHERE session_id = $1 AND type = 'workflow.started' AND data->>'runId' = $2`,
          [input.sessionId, input.runId],
        );
        if (rowCount) return;
        await appendEvents(client, input.sessionId, [
          { type: 'workflow.started', data: { runId: input.runId, workflow: input.workflow, input: input.input } },
        ]);
      });
      return graph;
    },

    async enterNode(
      input: RunRef & { nodeId: string; nodeType: EventData['workflow.node']['nodeType']; outputs: Record<string, unknown> },
    ): Promise<void> {
      await inTransaction(db, async (client) => {
        // Once per node visit: a retried call finds the run already at this node with these outputs.
        const { rows } = await client.query<{ current_node: string | null; outputs: Record<string, unknown> }>(
          'SELECT current_node, outputs FROM workflow_runs WHERE id = $1 FOR UPDATE',
          [input.runId],
        );
        const row = rows[0];
        if (row && row.current_node === input.nodeId && JSON.stringify(row.outputs) === JSON.stringify(input.outputs)) return;
        await setRunNode(client, input.runId, input.nodeId, input.outputs);
        await appendEvents(client, input.sessionId, [
          { type: 'workflow.node', data: { runId: input.runId, nodeId: input.nodeId, nodeType: input.nodeType } },
        ]);
      });
    },

    async finishRun(input: RunRef & { status: 'completed' | 'failed'; outputs: Record<string, unknown>; error?: string }): Promise<void> {
      await inTransaction(db, async (client) => {
        const ended = await endRun(client, input.runId, input);
        if (!ended) return;
        await setSessionStatus(client, input.sessionId, 'idle');
        await appendEvents(client, input.sessionId, [
          input.status === 'completed'
            ? { type: 'workflow.completed', data: { runId: input.runId, outputs: input.outputs } }
            : { type: 'workflow.failed', data: { runId: input.runId, error: input.error ?? 'The run failed' } },
        ]);
      });
    },
  };
}
