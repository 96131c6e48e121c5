// Calls of other agents in an eval's case that replays a recorded session (docs/evals.md): a call matching
// a recorded one (store/eval-recordings.ts, recordedAnswer: same tool, equal input, the first unused in
// recorded order) takes the recorded reply, and no child session runs, so the callee's own tools do not
// run again either. Any other call is refused with why, whatever the run's `unmatched`: the callee's
// session is an ordinary one, where every tool runs for real, and an agent is no tool the bundle can mark
// safe. The answer goes the way a child's reply does (stored in the caller's inbox, then signalled), so
// no workflow changed.
import type { Client } from '@temporalio/client';
import type { Db } from '../store/db.ts';
import { recordedAnswer } from '../store/eval-recordings.ts';
import { replayingSession } from './turn/eval-session-cache.ts';
import { storeClientToolAnswer, type ClientToolAnswer } from '../store/client-tool-answers.ts';
import { markAnswerWoken, type AgentCallStarted } from '../store/agent-calls.ts';
import { findToolCall } from '../store/tool-calls.ts';
import { handAgentCallAnswer } from '../clients/session.ts';

/** The call as activities/agent-calls.ts gets it (its AgentCallInput), with the child the workflow named. */
export interface ReplayableAgentCall {
  sessionId: string;
  userId: string;
  messageId: string;
  call: { toolCallId: string; toolName: string; input: unknown };
  childSessionId: string;
  childMessageId: string;
  callerWorkflowId?: string;
}

/** What the call gets in a replaying session; undefined: not a replay, the call runs as any does. */
export async function replayedAgentCall(db: Db, temporal: () => Client, input: ReplayableAgentCall): Promise<AgentCallStarted | undefined> {
  const replay = await replayingSession(db, input.sessionId);
  if (!replay?.replayOf) return undefined;
  const { toolCallId, toolName } = input.call;
  // Found before a recorded call is taken for it: a call taken is reported replayed.
  const call = await findToolCall(db, input.sessionId, toolCallId);
  if (!call) return { refused: 'The call is not in the session.' };
  const ids = { sessionId: input.sessionId, runId: replay.runId, replayOf: replay.replayOf, toolCallId, toolName, input: input.call.input };
  const recorded = await recordedAnswer(db, ids);
  if (!recorded.matched)
    return {
      refused: `This is an eval replaying a recorded session, and no recorded call of "${toolName}" with this input was left to answer it; the other agent was not called (its session would run its tools for real).`,
    };
  const answer: ClientToolAnswer = recorded.isError
    ? { error: typeof recorded.output === 'string' ? recorded.output : JSON.stringify(recorded.output) }
    : { output: recorded.output };
  const where = { sessionId: input.sessionId, messageId: input.messageId, toolCallId };
  const stored = await storeClientToolAnswer(db, { ...where, userId: input.userId, callSeq: call.seq, answer });
  const taken = stored.status === 'decided' && stored.answer ? stored.answer : answer;
  if (stored.status !== 'ended') {
    const caller = { sessionId: input.sessionId, ...(input.callerWorkflowId ? { workflowId: input.callerWorkflowId } : {}) };
    if (await handAgentCallAnswer(temporal(), caller, { messageId: input.messageId, toolCallId, ...taken }))
      await markAnswerWoken(db, { parentSessionId: input.sessionId, messageId: input.messageId, toolCallId });
  }
  // The child the workflow named is never opened: an abort of the turn finds no session of that id, and passes it by.
  return { childSessionId: input.childSessionId, childMessageId: input.childMessageId };
}
