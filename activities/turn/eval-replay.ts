// A service tool call in an eval's case that replays a recorded session (store/eval-recordings.ts): the
// recorded result of a matching call answers it and nothing runs, so an `http` tool that sent an email
// in the recording sends none in the eval. A call no recorded call matches gets a tool error, unless the
// run lets unmatched calls run live and the tool is safe to run (activities/tools/safe-tools.ts).
// Whether a session replays is read once per session and process (eval-session-cache.ts).
import type { Db } from '../../store/db.ts';
import { recordedAnswer, type EvalSession } from '../../store/eval-recordings.ts';
import { replayingSession } from './eval-session-cache.ts';
import type { ServiceToolResult, ToolCall } from '../../core/turn-types.ts';

export function replayedResult(db: Db) {
  /**
   * The recorded answer (or the refusal of an unmatched call) for a replaying session; null: run the tool.
   * `safe`: whether the call changes nothing anyone sees (activities/tools/safe-tools.ts), so an unmatched one may run live.
   */
  return async function replayed(sessionId: string, call: ToolCall, safe: () => boolean): Promise<ServiceToolResult | null> {
    const session = await replayingSession(db, sessionId);
    if (!session?.replayOf) return null;
    const { toolCallId, toolName } = call;
    const answer = await recordedAnswer(db, {
      sessionId,
      runId: session.runId,
      replayOf: session.replayOf,
      toolCallId,
      toolName,
      input: call.input,
    });
    if (answer.matched)
      return { type: 'tool-result', toolCallId, toolName, output: answer.output, ...(answer.isError ? { isError: true } : {}) };
    if (session.unmatched === 'live' && safe()) return null;
    return { type: 'tool-result', toolCallId, toolName, output: { error: unmatchedText(toolName, session.unmatched) }, isError: true };
  };
}

/** What the model reads for an unmatched call that does not run. */
export function unmatchedText(toolName: string, unmatched: EvalSession['unmatched']): string {
  const head = `This is an eval replaying a recorded session, and no recorded call of "${toolName}" with this input was left to answer it`;
  return unmatched === 'live'
    ? `${head}; the tool is not marked safe to run in an eval (the bundle's safeTools), so it did not run.`
    : `${head}; the tool did not run.`;
}
