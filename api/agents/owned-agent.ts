// The one rule for an agent named in a request: names are per user, so another user's agent (or a
// deleted one) is simply not found, with the same 404 wherever a route takes an agent's name.
import { findAgent, type Agent } from '../../store/agents.ts';
import type { Db } from '../../store/db.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';

export function noAgentNamed(name: string): NotFoundError {
  return new NotFoundError(`You have no agent named "${name}"`);
}

/** The caller's agent of this name; a 404 when the caller has none. */
export async function loadOwnedAgent(db: Db, userId: string, name: string): Promise<Agent> {
  const agent = await findAgent(db, userId, name);
  if (!agent) throw noAgentNamed(name);
  return agent;
}
