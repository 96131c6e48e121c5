// One firing of a trigger (`trigger:…`): a schedule's action for cron triggers, started by the API
// for webhook triggers and for runs started through the API. It opens a fresh session (idempotent:
// the API may have opened it already), publishes `trigger.fired`, then either sends the first
// message through the session workflow or starts a run of the named workflow graph in the session.
import {
  ParentClosePolicy,
  proxyActivities,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities/index.ts';
import { idCharsFromHex } from '../lib/workflow-safe/id-alphabet.ts';
import { cronMessage, webhookMessage, type TriggerRunInput } from '../lib/workflow-safe/triggers.ts';
import type { EventData } from '../contract/events.ts';
import { graphRunWorkflow } from './graph.ts';
import { publishEvent } from './publish.ts';
import { graphRunWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { SessionIdKey, searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

/** Set by Temporal on a workflow a schedule started: the firing's nominal time. */
const ScheduledStartTimeKey = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

function newId(kind: 'ses' | 'msg' | 'run'): string {
  return `${kind}_${idCharsFromHex(uuid4().replace(/-/g, '') + uuid4().replace(/-/g, ''))}`;
}

export async function triggerRunWorkflow(
  input: TriggerRunInput,
): Promise<{ sessionId: string; messageId?: string; runId?: string } | { skipped: true }> {
  const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 20 } });
  const nominal: Date | undefined = workflowInfo().typedSearchAttributes.get(ScheduledStartTimeKey);
  const firedAt = input.firedAt ?? (nominal ? new Date(nominal) : new Date(Date.now())).toISOString();
  let revision = input.revision;
  if (input.trigger.kind === 'cron') {
    const check = await acts.checkScheduledFiring({ agentId: input.agentId, revision: input.revision, trigger: input.trigger });
    if (!check.fire) return { skipped: true };
    revision = check.revision;
  }
  const sessionId = input.sessionId ?? newId('ses');
  if (!input.sessionId) upsertSearchAttributes([{ key: SessionIdKey, value: sessionId }]);

  const fired: EventData['trigger.fired'] = {
    trigger: input.trigger,
    firedAt,
    ...(input.workflow ? { workflow: input.workflow } : {}),
  };
  const runId = input.workflow ? (input.runId ?? newId('run')) : undefined;
  if (runId) fired.runId = runId;
  await acts.openSessionForTrigger({
    sessionId,
    userId: input.userId,
    agentId: input.agentId,
    revision,
    fired,
    ...(input.workflow && runId ? { run: { runId, workflow: input.workflow, input: input.payload } } : {}),
  });
  await publishEvent(
    input.userId,
    {
      type: 'trigger.fired',
      data: { agentId: input.agentId, sessionId, trigger: input.trigger, firedAt, workflow: input.workflow ?? null, runId: runId ?? null },
    },
    `trigger.fired:${sessionId}`,
  );

  if (input.workflow && runId) {
    try {
      await startChild(graphRunWorkflow, {
        workflowId: graphRunWorkflowId(runId),
        args: [
          {
            runId,
            userId: input.userId,
            agentId: input.agentId,
            revision,
            sessionId,
            workflow: input.workflow,
            input: input.payload,
            settings: input.settings,
          },
        ],
        // A run may wait for days on an approval; this firing is done once it has started it.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: searchAttributes('run', { sessionId, agentId: input.agentId, userId: input.userId }),
        ...readableMetadata({
          summary: `Run ${runId} of workflow ${input.workflow}`,
          details: `Agent ${input.agentId} revision ${revision}. Events: GET /session/${sessionId}/events`,
        }),
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    return { sessionId, runId };
  }

  const messageId = input.messageId ?? newId('msg');
  const text = input.trigger.kind === 'cron' ? cronMessage(input.trigger, firedAt, input.payload) : webhookMessage(input.payload);
  await acts.sendFirstMessage({
    session: { id: sessionId, userId: input.userId, agentId: input.agentId, revision },
    messageId,
    text,
    settings: input.settings,
  });
  return { sessionId, messageId };
}
