// Sessions opened by a trigger or a workflow run: the session and its `trigger.fired` event in one
// transaction. Idempotent by session id, because a firing's activity may run again after a crash
// and the API opens the session of a webhook firing before its workflow does.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { getSession, insertSession, type Session } from './sessions.ts';
import type { EventData } from '../contract/events.ts';
import { insertRun } from './workflow-runs.ts';

export interface TriggeredSession {
  sessionId: string;
  userId: string;
  agentId: string;
  revision: number;
  fired: EventData['trigger.fired'];
  /** A workflow run that drives the session: recorded with it, so its id is readable (and it holds the session) at once. */
  run?: { runId: string; workflow: string; input: string | null };
}

export async function openTriggeredSession(db: Db, input: TriggeredSession): Promise<{ session: Session; created: boolean }> {
  const existing = await getSession(db, input.sessionId);
  if (existing) return { session: existing, created: false };
  try {
    const session = await inTransaction(db, async (client) => {
      const inserted = await insertSession(client, {
        id: input.sessionId,
        userId: input.userId,
        agentId: input.agentId,
        revision: input.revision,
      });
      await appendEvents(client, inserted.id, [{ type: 'trigger.fired', data: input.fired }]);
      if (input.run) {
        await insertRun(client, {
          id: input.run.runId,
          userId: input.userId,
          agentId: input.agentId,
          revision: input.revision,
          workflow: input.run.workflow,
          sessionId: inserted.id,
          input: input.run.input,
        });
      }
      return inserted;
    });
    return { session, created: true };
  } catch (error) {
    // Two openers raced on the same id: the other one's session stands.
    const raced = await getSession(db, input.sessionId);
    if (raced) return { session: raced, created: false };
    throw error;
  }
}
