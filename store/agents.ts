// Agents and revisions. Deploying a name the user already has locks that agent's row and adds the
// next revision, live at once or staged (store/revision-changes.ts promotes, rolls back and shares
// traffic); deploying a new name creates the agent. Names are per user, so another user's agent is
// simply not found. `revision` is the live revision everywhere; `latestRevision` the newest stored.
import type { Db } from './db.ts';
import { inTransaction } from './db.ts';
import { newId } from '../lib/ids.ts';
import type { Bundle } from '../lib/bundle/index.ts';
import type { ToolServerTool } from '../contract/tool-servers.ts';
import type { CallableAgent } from '../lib/workflow-safe/agent-tools.ts';
import type { TrafficShares } from '../lib/revision-traffic.ts';
import { ConflictError } from '../lib/workflow-safe/errors.ts';
import { recordChange, type RecordedDeliveries, type RevisionChange } from './revision-changes.ts';

export interface Agent {
  id: string;
  userId: string;
  name: string;
  /** The live revision: what new sessions start on, apart from traffic shares. */
  revision: number;
  /** The newest revision stored, live or staged. */
  latestRevision: number;
  traffic: TrafficShares;
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
  latest_revision: number;
  traffic: TrafficShares;
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
  // An API of the release before moves only current_revision (a rolling upgrade): read as at least it.
  latestRevision: Math.max(row.latest_revision, row.current_revision),
  traffic: row.traffic,
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
    /** Stored but not live: new sessions stay on the live revision until a promote or traffic share. */
    stage?: boolean;
    /** The API key that deployed it, kept with the change. */
    keyId?: string | null;
  },
): Promise<{ agent: Agent; created: boolean; change: RevisionChange; deliveries: RecordedDeliveries }> {
  return inTransaction(db, async (client) => {
    // Insert-or-lock: a concurrent deploy of the same new name waits on the unique index, then
    // finds the row and adds its revision after ours.
    const inserted = await client.query<AgentRow>(
      `INSERT INTO agents (id, user_id, name, current_revision, latest_revision) VALUES ($1, $2, $3, 1, 1)
       ON CONFLICT (user_id, name) WHERE deleted_at IS NULL DO NOTHING RETURNING *`,
      [newId('agt'), input.userId, input.bundle.name],
    );
    let row = inserted.rows[0];
    const created = row !== undefined;
    if (created && input.stage)
      throw new ConflictError(`The agent "${input.bundle.name}" has no live revision to keep serving: deploy it without stage first`);
    let liveBefore: number | null = null;
    if (!row) {
      // SET reads the old values: a staged revision keeps the live one and its traffic.
      const updated = await client.query<AgentRow & { live_before: number }>(
        `UPDATE agents a SET latest_revision = GREATEST(a.latest_revision, a.current_revision) + 1,
                current_revision = CASE WHEN $3 THEN a.current_revision ELSE GREATEST(a.latest_revision, a.current_revision) + 1 END,
                traffic = CASE WHEN $3 THEN a.traffic ELSE '{}'::jsonb END,
                updated_at = now()
           FROM (SELECT id, current_revision AS live_before FROM agents
                  WHERE user_id = $1 AND name = $2 AND deleted_at IS NULL FOR UPDATE) old
          WHERE a.id = old.id RETURNING a.*, old.live_before`,
        [input.userId, input.bundle.name, input.stage === true],
      );
      row = updated.rows[0]!;
      liveBefore = updated.rows[0]!.live_before;
    }
    await client.query(
      `INSERT INTO agent_revisions (agent_id, revision, bundle, warnings, fetched_skills, remote_tools, callable_agents, never_live)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.id,
        row.latest_revision,
        JSON.stringify(input.bundle),
        JSON.stringify(input.warnings),
        JSON.stringify(input.fetchedSkills ?? {}),
        JSON.stringify(input.remoteTools ?? {}),
        JSON.stringify(input.callableAgents ?? []),
        input.stage === true,
      ],
    );
    const { change, deliveries } = await recordChange(
      client,
      { userId: input.userId, agentName: row.name },
      {
        agentId: row.id,
        kind: input.stage ? 'staged' : 'deployed',
        revision: row.latest_revision,
        liveBefore,
        liveAfter: row.current_revision,
        traffic: row.traffic,
        keyId: input.keyId ?? null,
      },
    );
    return { agent: toAgent(row), created, change, deliveries };
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

export interface RevisionSummary extends Omit<AgentRevision, 'bundle' | 'fetchedSkills' | 'remoteTools' | 'callableAgents'> {
  /** Staged, and has served no session yet (not live, no traffic share). */
  neverLive: boolean;
}

export async function listRevisions(db: Db, agentId: string): Promise<RevisionSummary[]> {
  const { rows } = await db.query<RevisionRow & { never_live: boolean }>(
    'SELECT agent_id, revision, warnings, created_at, never_live FROM agent_revisions WHERE agent_id = $1 ORDER BY revision DESC',
    [agentId],
  );
  return rows.map((row) => ({
    agentId: row.agent_id,
    revision: row.revision,
    warnings: row.warnings,
    createdAt: row.created_at,
    neverLive: row.never_live,
  }));
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
  /** The live revision. */
  currentRevision: number;
  traffic: TrafficShares;
  deleted: boolean;
}

export async function agentState(db: Db, agentId: string): Promise<AgentState | undefined> {
  const { rows } = await db.query<{ user_id: string; name: string; current_revision: number; traffic: TrafficShares; deleted: boolean }>(
    'SELECT user_id, name, current_revision, traffic, deleted_at IS NOT NULL AS deleted FROM agents WHERE id = $1',
    [agentId],
  );
  const row = rows[0];
  return row && { userId: row.user_id, name: row.name, currentRevision: row.current_revision, traffic: row.traffic, deleted: row.deleted };
}

/** An agent by id with its name, deleted or not: what a record naming the agent shows. */
export async function findAgentById(db: Db, agentId: string): Promise<Agent | undefined> {
  const { rows } = await db.query<AgentRow>('SELECT * FROM agents WHERE id = $1', [agentId]);
  return rows[0] && toAgent(rows[0]);
}
