// Approvals asked in an eval case that replays a recorded session (docs/evals.md) take the answer the
// recording gave, at once and over no channel: nobody is asked twice for what they answered once. The
// question's call is matched with a recorded call as any replayed tool call is (store/eval-recordings.ts,
// recordedAnswer: same tool, equal input, the first unused in recorded order), so the tool's own replay
// later finds the same recorded call.
// - A tool's policy `ask`: the recorded approval's answer; `approve` when the recording ran the call
//   without asking (its recorded result is then replayed); `deny` when its approval expired unanswered.
// - `ask_my_user`: the recorded `{choice, note}`.
// - A question no recorded call matches is asked for real when the run runs unmatched calls live (for a
//   tool, only one safe to run: activities/tools/safe-tools.ts); otherwise it is answered `approve` for a
//   tool (whose call then meets the replay's unmatched error) and NO_RECORDED_ANSWER for ask_my_user,
//   whose model reads the note.
import type { Db } from '../../store/db.ts';
import type { ApprovalWorkflowInput } from '../../lib/workflow-safe/approvals.ts';
import { ASK_MY_USER } from '../../lib/workflow-safe/ask-my-user.ts';
import { recordedAnswer, recordedApprovalOf, sessionToolCall } from '../../store/eval-recordings.ts';
import { replayingSession } from './eval-session-cache.ts';

/** The choice given to ask_my_user when the recording has no answer to give. */
export const NO_RECORDED_ANSWER = '(no recorded answer)';

export interface ReplayedAnswer {
  choice: string;
  note: string | null;
}

/**
 * The answer to give now, or undefined to ask as any session does (not a replay, or an unmatched call the
 * run runs live). `safeToRunLive` tells whether the asking revision may run that tool in an eval.
 */
export async function replayedApprovalAnswer(
  db: Db,
  input: ApprovalWorkflowInput,
  safeToRunLive: (call: { toolName: string; input: unknown }) => Promise<boolean>,
): Promise<ReplayedAnswer | undefined> {
  if (input.source !== 'tool' || !input.sessionId || !input.toolCallId || input.request.connect) return undefined;
  const replay = await replayingSession(db, input.sessionId);
  if (!replay?.replayOf) return undefined;
  const call = await sessionToolCall(db, input.sessionId, input.toolCallId);
  if (!call) return undefined;
  const ids = { sessionId: input.sessionId, runId: replay.runId, replayOf: replay.replayOf, toolCallId: input.toolCallId };
  const recorded = await recordedAnswer(db, { ...ids, toolName: call.toolName, input: call.input });
  if (!recorded.matched) {
    if (call.toolName === ASK_MY_USER) {
      if (replay.unmatched === 'live') return undefined;
      return { choice: NO_RECORDED_ANSWER, note: 'This eval replays a recorded session, which asked no such question.' };
    }
    if (replay.unmatched === 'live' && (await safeToRunLive(call))) return undefined;
    return { choice: 'approve', note: 'No recorded call matches this one: the replay answers it with an error instead of running it.' };
  }
  if (call.toolName === ASK_MY_USER) {
    const output = recorded.output as { choice?: unknown; note?: unknown } | null;
    if (typeof output?.choice === 'string') return { choice: output.choice, note: typeof output.note === 'string' ? output.note : null };
    return { choice: NO_RECORDED_ANSWER, note: 'In the recorded session this question expired unanswered.' };
  }
  const approval = await recordedApprovalOf(db, ids);
  if (approval.status === 'answered') return { choice: approval.choice, note: approval.note };
  if (approval.status === 'expired') return { choice: 'deny', note: 'In the recorded session this approval expired unanswered.' };
  return { choice: 'approve', note: 'The recorded session ran this call without asking: its recorded result is replayed.' };
}
