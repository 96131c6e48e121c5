// A child's reply handed to the agent that called it: stored as the call's answer in the caller's inbox
// (store/agent-calls.ts), then signalled to the calling workflow with it. Done by the step that
// completes the child's turn, as soon as its end is written, and otherwise by the child's session
// workflow once the turn has ended (its endAgentCall local activity, retried until it succeeds). Both
// are idempotent: a second hand-back finds the answer stored and only signals again, which the caller
// takes once.
import type { Client } from '@temporalio/client';
import type { Db } from '../store/db.ts';
import { endAgentCall, markAnswerWoken, type AgentCallEnd } from '../store/agent-calls.ts';
import { handAgentCallAnswer } from '../clients/session.ts';

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
