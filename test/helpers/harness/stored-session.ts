// A session made straight in the database, for tests of what is stored and read (events, replay,
// messages): an agent of the minimal bundle deployed for `user`, and a session of it. No API, no workflow.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../store/db.ts';
import { deployRevision } from '../../../store/agents.ts';
import { createSession } from '../../../store/sessions.ts';
import { minimalBundle } from './bundles.ts';
import type { TestUser } from './users.ts';

/** The new session's id; `label` starts the agent's name, so a failing test's rows say which test made them. */
export async function storedSession(db: Db, user: TestUser, label: string): Promise<string> {
  const { agent } = await deployRevision(db, {
    userId: user.userId,
    bundle: minimalBundle(`${label}-${randomUUID().slice(0, 8)}`),
    warnings: [],
  });
  return (await createSession(db, { userId: user.userId, agentId: agent.id, revision: agent.revision })).id;
}
