// A run of a workflow graph (`run:<runId>`): the graph of the revision it started on, walked node by
// node in the run's own session. An agent node is one turn (a child turn workflow, as a session
// runs them), or, naming another agent, that agent's turn in a child session of the run's session (its
// reply signalled back: graph-messages.ts); an approval node is an approval (same record, channels,
// links and API as ask_my_user)
// that may wait for days, then follows `next[choice]`, or `onExpired`; an end node, or a node with
// nowhere to go, completes the run. A failed turn fails the run.
import {
  rootCause,
  CancellationScope,
  ChildWorkflowCancellationType,
  isCancellation,
  executeChild,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  condition,
  uuid4,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import type { Workflow, WorkflowNode } from '../contract/bundle.ts';
import { renderTemplate, type NodeOutput } from '../lib/workflow-safe/graph-template.ts';
import { parseApprovalRequest } from '../lib/workflow-safe/approvals.ts';
import { idCharsFromHex } from '../lib/workflow-safe/id-alphabet.ts';
import { approvalWorkflow } from './approval.ts';
import { approvalSummary, newApprovalId } from './ask-user.ts';
import { turnWorkflow } from './turn.ts';
import { childSessionId } from './agent-calls.ts';
import { agentNodeEndedSignal, type AgentNodeEnd } from './graph-messages.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import { approvalWorkflowId, turnWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { searchAttributes } from '../lib/workflow-safe/search-attributes.ts';
import { readableMetadata } from '../lib/workflow-safe/readable-metadata.ts';

export interface GraphRunInput {
  runId: string;
  userId: string;
  agentId: string;
  revision: number;
  sessionId: string;
  workflow: string;
  input: string | null;
  settings: TurnSettings;
}

/** A graph may loop (revise, check again); a run that visits this many nodes has lost its way. */
const MAX_VISITS = 200;

function newMessageId(): string {
  return `msg_${idCharsFromHex(uuid4().replace(/-/g, '') + uuid4().replace(/-/g, ''))}`;
}

export async function graphRunWorkflow(
  run: GraphRunInput,
): Promise<{ status: 'completed' | 'failed'; outputs: Record<string, NodeOutput> }> {
  const acts = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 10 } });
  const book = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });
  const ref = { runId: run.runId, sessionId: run.sessionId };
  const outputs: Record<string, NodeOutput> = {};
  const attributes = { sessionId: run.sessionId, agentId: run.agentId, userId: run.userId };

  // Agent nodes run by other agents: their child sessions' turns end with this signal (the session
  // workflow sends it), kept until the node reads it.
  const nodeEnds = new Map<string, AgentNodeEnd>();
  setHandler(agentNodeEndedSignal, (end) => void nodeEnds.set(end.turnId, end));

  /** A node whose prompt another agent runs, in a child session of the run's session; its reply is the output. */
  async function calledAgentNode(nodeId: string, agent: string, prompt: string): Promise<string> {
    const turnId = newMessageId();
    const started = await acts.startAgentNode({
      sessionId: run.sessionId,
      userId: run.userId,
      agentId: run.agentId,
      revision: run.revision,
      messageId: turnId,
      childSessionId: childSessionId(),
      childMessageId: turnId,
      settings: run.settings,
      runId: run.runId,
      nodeId,
      agent,
      prompt,
    });
    if ('refused' in started) throw nonRetryable(FAILURE.nodeFailed, `Node "${nodeId}": ${started.refused}`);
    try {
      await condition(() => nodeEnds.has(turnId));
    } catch (error) {
      // The run was cancelled: so is the child's turn.
      if (isCancellation(error))
        await CancellationScope.nonCancellable(() =>
          acts.abortAgentCalls({ settings: run.settings, children: [{ sessionId: started.childSessionId, turnId }] }),
        );
      throw error;
    }
    const end = nodeEnds.get(turnId)!;
    if (end.status !== 'completed')
      throw nonRetryable(FAILURE.nodeFailed, `Node "${nodeId}": the agent "${agent}" ended ${end.status}: ${end.error ?? ''}`);
    return end.reply;
  }

  async function agentNode(nodeId: string, node: Extract<WorkflowNode, { type: 'agent' }>): Promise<string | undefined> {
    const prompt = renderTemplate(node.prompt, { input: run.input, outputs });
    if (node.agent !== undefined) {
      outputs[nodeId] = { output: await calledAgentNode(nodeId, node.agent, prompt) };
      return node.next;
    }
    const turnId = newMessageId();
    await book.recordUserMessage({ sessionId: run.sessionId, messageId: turnId, parts: [{ type: 'text', text: prompt }] });
    const outcome = await executeChild(turnWorkflow, {
      workflowId: turnWorkflowId(run.sessionId, turnId),
      args: [
        { sessionId: run.sessionId, userId: run.userId, agentId: run.agentId, revision: run.revision, turnId, settings: run.settings },
      ],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      typedSearchAttributes: searchAttributes('turn', attributes),
      ...readableMetadata({ summary: `Node ${nodeId} of run ${run.runId} (workflow ${run.workflow})` }),
    });
    if (outcome.status !== 'completed') throw nonRetryable(FAILURE.nodeFailed, `Node "${nodeId}": the turn ended ${outcome.status}`);
    outputs[nodeId] = { output: outcome.reply ?? '' };
    return node.next;
  }

  async function approvalNode(nodeId: string, node: Extract<WorkflowNode, { type: 'approval' }>): Promise<string | undefined> {
    const approvalId = newApprovalId();
    const question = renderTemplate(node.question, { input: run.input, outputs });
    // The same rules as ask_my_user; a rendered question may have grown past its limit.
    const { approvers, quorum, denyWins, remind, escalate } = node;
    const parsed = parseApprovalRequest(
      {
        question,
        options: node.options,
        ...(node.expiresInMs !== undefined ? { expiresInMs: node.expiresInMs } : {}),
        // Its approvers, as deployed (checked against the directory then).
        ...(approvers !== undefined ? { approvers } : {}),
        ...(quorum !== undefined ? { quorum } : {}),
        ...(denyWins !== undefined ? { denyWins } : {}),
        ...(remind !== undefined ? { remind } : {}),
        ...(escalate !== undefined ? { escalate } : {}),
      },
      run.settings.approvals,
      { team: true },
    );
    if (!parsed.ok) throw nonRetryable(FAILURE.invalidApprovalNode, `Node "${nodeId}": ${parsed.error}`);
    const outcome = await executeChild(approvalWorkflow, {
      workflowId: approvalWorkflowId(approvalId),
      args: [
        {
          approvalId,
          userId: run.userId,
          source: 'workflow',
          agentId: run.agentId,
          revision: run.revision,
          sessionId: run.sessionId,
          request: parsed.request,
          settings: run.settings.approvals,
        },
      ],
      // The record outlives the run, as it outlives a turn.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: searchAttributes('approval', attributes),
      ...readableMetadata({
        summary: approvalSummary(approvalId),
        details: `Node ${nodeId} of run ${run.runId} (workflow ${run.workflow}). Answer: POST /approval/${approvalId}/answer`,
      }),
    });
    if (outcome.status === 'expired') {
      outputs[nodeId] = { expired: true };
      return node.onExpired;
    }
    outputs[nodeId] = { choice: outcome.choice, note: outcome.note };
    return Object.hasOwn(node.next, outcome.choice) ? node.next[outcome.choice] : undefined;
  }

  // The run's record must end whatever happens, a cancellation included (else its session stays held).
  const finish = (status: 'completed' | 'failed', error?: string) =>
    CancellationScope.nonCancellable(() => book.finishRun({ ...ref, status, outputs, ...(error !== undefined ? { error } : {}) }));
  try {
    const graph: Workflow = await acts.startRun({
      ...ref,
      userId: run.userId,
      agentId: run.agentId,
      revision: run.revision,
      workflow: run.workflow,
      input: run.input,
    });
    let nodeId: string | undefined = graph.start;
    for (let visit = 1; nodeId !== undefined; visit++) {
      if (visit > MAX_VISITS) throw nonRetryable(FAILURE.runTooLong, `The run visited ${MAX_VISITS} nodes without ending`);
      const node: WorkflowNode | undefined = graph.nodes[nodeId];
      if (!node) throw nonRetryable(FAILURE.unknownNode, `The graph has no node "${nodeId}"`);
      await book.enterNode({ ...ref, visit, nodeId, nodeType: node.type, outputs });
      if (node.type === 'end') break;
      nodeId = node.type === 'agent' ? await agentNode(nodeId, node) : await approvalNode(nodeId, node);
    }
  } catch (error) {
    await finish('failed', isCancellation(error) ? 'The run was cancelled' : (rootCause(error) ?? String(error)));
    if (isCancellation(error)) throw error;
    return { status: 'failed', outputs };
  }
  await finish('completed');
  return { status: 'completed', outputs };
}
