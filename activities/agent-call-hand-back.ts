// A child's reply handed to the agent that called it: stored as the call's answer in the caller's inbox
// (store/agent-calls.ts), then signalled to the calling workflow with it. Done by the step that
// completes the child's turn, as soon as its end is written, and otherwise by the child's session
// workflow once the turn has ended (its endAgentCall local activity, retried until it succeeds). Both
// are idempotent: a second hand-back finds the answer stored and only signals again, which the caller
// takes once.
import type { Client } from '@temporalio/client';
import type { Db } from '../store/db.ts';
import { endAgentCall, endAgentNode, markAnswerWoken, type AgentCallEnd } from '../store/agent-calls.ts';
import { handAgentCallAnswer } from '../clients/session.ts';
import type { SubtaskReplyTarget } from '../core/session-turns.ts';
import { handAgentNodeEnd } from '../clients/graph-run.ts';

/** false: the caller's turn has ended (or its call had an answer), and nobody waits for this one. */
export async function handBackAgentCall(db: Db, client: Client, end: AgentCallEnd): Promise<boolean> {
  const ended = await endAgentCall(db, end);
  if (!ended.stored) return false;
  const answer = { messageId: end.messageId, toolCallId: end.toolCallId, ...ended.answer };
  // With no caller's workflow running, nothing waits for it (a later take reads it from the inbox).
  const caller = { sessionId: end.parentSessionId, ...(end.callerWorkflowId ? { workflowId: end.callerWorkflowId } : {}) };
  if (await handAgentCallAnswer(client, caller, answer)) await markAnswerWoken(db, end);
  return true;
}

/**
 * A child's turn that its session workflow left without an end (terminated mid-turn) was ended as failed
 * by the session's next run: its caller learns it as the call's failure, a graph node's run as the
 * node's. A subtask's target waits for nothing and is told nothing.
 */
export async function handBackStranded(
  db: Db,
  client: Client,
  target: SubtaskReplyTarget,
  end: Omit<AgentCallEnd, 'parentSessionId' | 'messageId' | 'toolCallId' | 'agent' | 'status'>,
): Promise<void> {
  if (!target.toolCallId) return;
  const call: AgentCallEnd = {
    ...end,
    parentSessionId: target.sessionId,
    messageId: target.messageId,
    toolCallId: target.toolCallId,
    agent: target.agent ?? '',
    status: 'failed',
    ...(target.workflowId ? { callerWorkflowId: target.workflowId } : {}),
  };
  if (target.runId) {
    const node = await endAgentNode(db, call);
    await handAgentNodeEnd(client, target.runId, { turnId: end.turnId, ...node });
    return;
  }
  await handBackAgentCall(db, client, call);
}
