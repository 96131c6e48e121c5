// Agents and revisions. Deploying a name the user already has locks that agent's row and adds the
// next revision; deploying a new name creates the agent. Names are per user, so another user's
// agent is simply not found.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import type { Bundle } from '../lib/bundle/index.ts';
import type { ToolServerTool } from '../contract/tool-servers.ts';
import type { CallableAgent } from '../lib/workflow-safe/agent-tools.ts';

export interface Agent {
  id: string;
  userId: string;
  name: string;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface AgentRevision {
  agentId: string;
  revision: number;
  bundle: Bundle;
  warnings: string[];
  /** Texts of the skills given by URL, fetched at deploy, by the skill's index in `bundle.skills`. */
  fetchedSkills: Record<string, string>;
  /** The tools of each remote MCP server the bundle names, listed at deploy, by server id. */
  remoteTools: Record<string, ToolServerTool[]>;
  /** The agents the bundle may call, as deploy resolved them (api/agents/callable-agents.ts). */
  callableAgents: CallableAgent[];
  createdAt: Date;
}

interface AgentRow {
  id: string;
  user_id: string;
  name: string;
  current_revision: number;
  created_at: Date;
  updated_at: Date;
}

interface RevisionRow {
  agent_id: string;
  revision: number;
  bundle: Bundle;
  warnings: string[];
  fetched_skills: Record<string, string>;
  remote_tools: Record<string, ToolServerTool[]>;
  callable_agents: CallableAgent[] | null;
  created_at: Date;
}

const toAgent = (row: AgentRow): Agent => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  revision: row.current_revision,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toRevision = (row: RevisionRow): AgentRevision => ({
  agentId: row.agent_id,
  revision: row.revision,
  bundle: row.bundle,
  warnings: row.warnings,
  fetchedSkills: row.fetched_skills,
  remoteTools: row.remote_tools,
  callableAgents: row.callable_agents ?? [],
  createdAt: row.created_at,
});

export async function deployRevision(
  db: Db,
  input: {
    userId: string;
    bundle: Bundle;
    warnings: string[];
    fetchedSkills?: Record<string, string>;
    remoteTools?: Record<string, ToolServerTool[]>;
    callableAgents?: CallableAgent[];
  },
): Promise<{ agent: Agent; created: boolean }> {
  return inTransaction(db, async (client) => {
    // Insert-or-lock: a concurrent deploy of the same new name waits on the unique index, then
    // finds the row and adds its revision after ours.
    const inserted = await client.query<AgentRow>(
      `INSERT INTO agents (id, user_id, name, current_revision) VALUES ($1, $2, $3, 1)
       ON CONFLICT (user_id, name) WHERE deleted_at IS NULL DO NOTHING RETURNING *`,
      [newId('agt'), input.userId, input.bundle.name],
    );
    let row = inserted.rows[0];
    const created = row !== undefined;
    if (!row) {
      const updated = await client.query<AgentRow>(
        `UPDATE agents SET current_revision = current_revision + 1, updated_at = now()
          WHERE user_id = $1 AND name = $2 AND deleted_at IS NULL RETURNING *`,
        [input.userId, input.bundle.name],
      );
      row = updated.rows[0]!;
    }
    await client.query(
      `INSERT INTO agent_revisions (agent_id, revision, bundle, warnings, fetched_skills, remote_tools, callable_agents)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        row.id,
        row.current_revision,
        JSON.stringify(input.bundle),
        JSON.stringify(input.warnings),
        JSON.stringify(input.fetchedSkills ?? {}),
        JSON.stringify(input.remoteTools ?? {}),
        JSON.stringify(input.callableAgents ?? []),
      ],
    );
    return { agent: toAgent(row), created };
  });
}

export async function listAgents(db: Db, userId: string): Promise<Agent[]> {
  const { rows } = await db.query<AgentRow>('SELECT * FROM agents WHERE user_id = $1 AND deleted_at IS NULL ORDER BY name', [userId]);
  return rows.map(toAgent);
}

export async function findAgent(db: Db, userId: string, name: string): Promise<Agent | undefined> {
  const { rows } = await db.query<AgentRow>('SELECT * FROM agents WHERE user_id = $1 AND name = $2 AND deleted_at IS NULL', [userId, name]);
  return rows[0] && toAgent(rows[0]);
}

export async function getRevision(db: Db, agentId: string, revision: number): Promise<AgentRevision | undefined> {
  const { rows } = await db.query<RevisionRow>('SELECT * FROM agent_revisions WHERE agent_id = $1 AND revision = $2', [agentId, revision]);
  return rows[0] && toRevision(rows[0]);
}

export async function listRevisions(
  db: Db,
  agentId: string,
): Promise<Omit<AgentRevision, 'bundle' | 'fetchedSkills' | 'remoteTools' | 'callableAgents'>[]> {
  const { rows } = await db.query<RevisionRow>(
    'SELECT agent_id, revision, warnings, created_at FROM agent_revisions WHERE agent_id = $1 ORDER BY revision DESC',
    [agentId],
  );
  return rows.map((row) => ({ agentId: row.agent_id, revision: row.revision, warnings: row.warnings, createdAt: row.created_at }));
}

/** Frees the name; the rows stay so that sessions of the agent remain readable. */
export async function deleteAgent(db: Db, userId: string, name: string): Promise<Agent | undefined> {
  const { rows } = await db.query<AgentRow>(
    'UPDATE agents SET deleted_at = now(), updated_at = now() WHERE user_id = $1 AND name = $2 AND deleted_at IS NULL RETURNING *',
    [userId, name],
  );
  return rows[0] && toAgent(rows[0]);
}

/** An agent by id, deleted or not: what a trigger or schedule checks before it fires. */
export interface AgentState {
  userId: string;
  name: string;
  currentRevision: number;
  deleted: boolean;
}

export async function agentState(db: Db, agentId: string): Promise<AgentState | undefined> {
  const { rows } = await db.query<{ user_id: string; name: string; current_revision: number; deleted: boolean }>(
    'SELECT user_id, name, current_revision, deleted_at IS NOT NULL AS deleted FROM agents WHERE id = $1',
    [agentId],
  );
  const row = rows[0];
  return row && { userId: row.user_id, name: row.name, currentRevision: row.current_revision, deleted: row.deleted };
}
