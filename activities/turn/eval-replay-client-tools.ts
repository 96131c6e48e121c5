// Custom tools the client runs, in an eval's case that replays a recorded session (docs/evals.md): nobody
// runs the case's client, so when its turn starts waiting for client calls, each call that matches a
// recorded one (store/eval-recordings.ts, recordedAnswer: same tool, equal input, the first unused in
// recorded order) is answered with the recorded result, as the API stores a client's answer, and handed
// to the session's workflow. An unmatched call gets the replay's tool error, or, when the run runs
// unmatched calls live, waits for a client to answer it (POST /session/<case session>/tool-result) as in
// any session. No workflow changed: the answers come the way a client's do.
import type { Client } from '@temporalio/client';
import type { Db } from '../../store/db.ts';
import { recordedAnswer } from '../../store/eval-recordings.ts';
import { replayingSession } from './eval-session-cache.ts';
import { awaitedClientToolCalls } from '../../store/tool-calls.ts';
import { storeClientToolAnswer, unwokenAnswers, type ClientToolAnswer } from '../../store/client-tool-answers.ts';
import { getSession } from '../../store/sessions.ts';
import { handAgentCallAnswer } from '../../clients/session.ts';
import { markAnswerWoken } from '../../store/agent-calls.ts';
import { unmatchedText } from './eval-replay.ts';

/** Answers the awaited client calls of a replaying session from its recording; other sessions: nothing. */
export async function answerReplayedClientCalls(db: Db, temporal: () => Client, sessionId: string): Promise<void> {
  const replay = await replayingSession(db, sessionId);
  if (!replay?.replayOf) return;
  const session = await getSession(db, sessionId);
  if (!session) return;
  for (const call of await awaitedClientToolCalls(db, sessionId)) {
    const { messageId, toolCallId, toolName } = call;
    const ids = { sessionId, runId: replay.runId, replayOf: replay.replayOf, toolCallId, toolName, input: call.input };
    const recorded = await recordedAnswer(db, ids);
    let answer: ClientToolAnswer;
    if (recorded.matched) answer = recorded.isError ? { error: errorText(recorded.output) } : { output: recorded.output };
    else if (replay.unmatched === 'live') continue;
    else answer = { error: unmatchedText(toolName, 'error') };
    await storeClientToolAnswer(db, { sessionId, userId: session.userId, messageId, toolCallId, callSeq: call.seq, answer });
  }
  // Handed over with the answer, as a child's reply is: those just stored, and any an earlier attempt of this
  // activity stored but could not hand over (the turn takes an answer once). Marked woken, so the sweep
  // of lost answers passes them by.
  for (const answer of await unwokenAnswers(db, sessionId)) {
    if (await handAgentCallAnswer(temporal(), { sessionId }, answer))
      await markAnswerWoken(db, { parentSessionId: sessionId, messageId: answer.messageId, toolCallId: answer.toolCallId });
  }
}

/** A recorded error result as the text a client's error is: the model reads it as the tool's failure. */
function errorText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output);
}
