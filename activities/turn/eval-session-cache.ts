// Whether a session is an eval's case that replays a recording (store/eval-recordings.ts, evalSessionOf),
// read once per session and process and kept: it is fixed when the case's session is made, before its
// first turn, so an ordinary session pays one lookup per process, not one per tool call, client-tool
// wait, agent call or question.
import type { Db } from '../../store/db.ts';
import { evalSessionOf, type EvalSession } from '../../store/eval-recordings.ts';

const MAX_KNOWN = 10_000;
const known = new Map<string, EvalSession | null>();

export async function replayingSession(db: Db, sessionId: string): Promise<EvalSession | null> {
  if (known.has(sessionId)) return known.get(sessionId)!;
  const found = await evalSessionOf(db, sessionId);
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
  known.set(sessionId, found);
  return found;
}
