// What serves an agent's new sessions, and every change to it: a deploy (live at once), a staged
// deploy, a promote, a rollback, a traffic share. Each change locks the agent's row, so two changes of
// one agent are ordered, and is a row of `agent_revision_changes` with the key that made it: the
// revision list shows them and a webhook event (`agent.changed`) tells subscribers.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import type { TrafficShares } from '../lib/revision-traffic.ts';
import { ConflictError, NotFoundError, ValidationError } from '../lib/workflow-safe/errors.ts';
import type { WebhookEventData } from '../contract/webhook-events.ts';
import { insertDeliveries } from './webhook-deliveries.ts';

export type ChangeKind = 'deployed' | 'staged' | 'promoted' | 'rolled_back' | 'traffic';

export interface RevisionChange {
  id: string;
  agentId: string;
  kind: ChangeKind;
  /** The revision the change is about: deployed, staged, promoted or rolled back to (null for traffic). */
  revision: number | null;
  /** The live revision before it (null for an agent's first revision). */
  liveBefore: number | null;
  liveAfter: number;
  traffic: TrafficShares;
  keyId: string | null;
  at: Date;
}

interface ChangeRow {
  id: string;
  agent_id: string;
  kind: ChangeKind;
  revision: number | null;
  live_before: number | null;
  live_after: number;
  traffic: TrafficShares;
  key_id: string | null;
  created_at: Date;
}

const toChange = (row: ChangeRow): RevisionChange => ({
  id: String(row.id),
  agentId: row.agent_id,
  kind: row.kind,
  revision: row.revision,
  liveBefore: row.live_before,
  liveAfter: row.live_after,
  traffic: row.traffic,
  keyId: row.key_id,
  at: row.created_at,
});

/** At most this many revisions share traffic with the live one. */
export const TRAFFIC_MAX_REVISIONS = 5;

/** The `agent.changed` event's deliveries, recorded with the change; the API starts them once it commits. */
export interface RecordedDeliveries {
  userId: string;
  deliveries: Array<{ id: string; subscriptionId: string }>;
}

/** The `agent.changed` webhook event's data. */
export function changedEvent(agentName: string, change: RevisionChange): WebhookEventData['agent.changed'] {
  return {
    agentId: change.agentId,
    agentName,
    change: change.kind,
    changeId: change.id,
    revision: change.revision,
    liveRevision: change.liveAfter,
    previousLiveRevision: change.liveBefore,
    traffic: change.traffic,
    keyId: change.keyId,
    at: change.at.toISOString(),
  };
}

/** The change's row and its event's deliveries, in the caller's transaction: both commit, or neither. */
export async function recordChange(
  client: DbClient,
  owner: { userId: string; agentName: string },
  change: Omit<RevisionChange, 'id' | 'at'>,
): Promise<{ change: RevisionChange; deliveries: RecordedDeliveries }> {
  const { rows } = await client.query<ChangeRow>(
    `INSERT INTO agent_revision_changes (agent_id, kind, revision, live_before, live_after, traffic, key_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [change.agentId, change.kind, change.revision, change.liveBefore, change.liveAfter, JSON.stringify(change.traffic), change.keyId],
  );
  const recorded = toChange(rows[0]!);
  const deliveries = await insertDeliveries(client, {
    userId: owner.userId,
    type: 'agent.changed',
    eventKey: `agent.changed:${recorded.id}`,
    data: changedEvent(owner.agentName, recorded),
  });
  return { change: recorded, deliveries: { userId: owner.userId, deliveries } };
}

/** Newest first. */
export async function listChanges(db: Db, agentId: string, limit: number): Promise<RevisionChange[]> {
  const { rows } = await db.query<ChangeRow>('SELECT * FROM agent_revision_changes WHERE agent_id = $1 ORDER BY id DESC LIMIT $2', [
    agentId,
    limit,
  ]);
  return rows.map(toChange);
}

interface Locked {
  userId: string;
  name: string;
  live: number;
  latest: number;
  traffic: TrafficShares;
}

async function lockAgent(client: DbClient, agentId: string): Promise<Locked> {
  const { rows } = await client.query<{ user_id: string; name: string; current_revision: number; latest: number; traffic: TrafficShares }>(
    `SELECT user_id, name, current_revision, GREATEST(latest_revision, current_revision) AS latest, traffic
       FROM agents WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
    [agentId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError('The agent was deleted');
  return { userId: row.user_id, name: row.name, live: row.current_revision, latest: row.latest, traffic: row.traffic };
}

const ownerOf = (locked: Locked) => ({ userId: locked.userId, agentName: locked.name });

function refuseUnknown(revision: number, locked: Locked): void {
  if (revision > locked.latest) throw new NotFoundError(`There is no revision ${revision} (the latest is ${locked.latest})`);
}

/** A change of the live revision: its traffic shares end (a canary is over once a revision is promoted). */
async function makeLive(
  client: DbClient,
  agentId: string,
  locked: Locked,
  revision: number,
  kind: 'promoted' | 'rolled_back',
  keyId: string | null,
): Promise<{ change: RevisionChange; deliveries: RecordedDeliveries }> {
  await client.query(`UPDATE agents SET current_revision = $2, traffic = '{}'::jsonb, updated_at = now() WHERE id = $1`, [
    agentId,
    revision,
  ]);
  await client.query('UPDATE agent_revisions SET never_live = false WHERE agent_id = $1 AND revision = $2 AND never_live', [
    agentId,
    revision,
  ]);
  return recordChange(client, ownerOf(locked), {
    agentId,
    kind,
    revision,
    liveBefore: locked.live,
    liveAfter: revision,
    traffic: {},
    keyId,
  });
}

export type LiveChange = { changed: true; change: RevisionChange; deliveries: RecordedDeliveries } | { changed: false; live: number };

/** Makes `revision` live. Promoting the live revision changes nothing (a retried promote is answered the same). */
export async function promote(db: Db, input: { agentId: string; revision: number; keyId: string | null }): Promise<LiveChange> {
  return inTransaction(db, async (client) => {
    const locked = await lockAgent(client, input.agentId);
    refuseUnknown(input.revision, locked);
    if (locked.live === input.revision) return { changed: false, live: locked.live };
    return { changed: true, ...(await makeLive(client, input.agentId, locked, input.revision, 'promoted', input.keyId)) };
  });
}

/**
 * Back to the revision that was live before the live one became live. A rollback is itself such a change,
 * so a second rollback returns to where the first one started (as `kubectl rollout undo` does).
 */
export async function rollback(
  db: Db,
  input: { agentId: string; keyId: string | null },
): Promise<{ change: RevisionChange; deliveries: RecordedDeliveries }> {
  return inTransaction(db, async (client) => {
    const locked = await lockAgent(client, input.agentId);
    const { rows } = await client.query<{ live_before: number }>(
      `SELECT live_before FROM agent_revision_changes
        WHERE agent_id = $1 AND live_after = $2 AND live_before IS NOT NULL AND live_before <> live_after
        ORDER BY id DESC LIMIT 1`,
      [input.agentId, locked.live],
    );
    // Agents deployed before changes were recorded: the newest earlier revision that served.
    const previous =
      rows[0]?.live_before ??
      (
        await client.query<{ revision: number }>(
          `SELECT revision FROM agent_revisions WHERE agent_id = $1 AND revision < $2 AND NOT never_live
            ORDER BY revision DESC LIMIT 1`,
          [input.agentId, locked.live],
        )
      ).rows[0]?.revision;
    if (previous === undefined)
      throw new ConflictError(`Revision ${locked.live} is the first live revision: there is nothing to roll back to`);
    return makeLive(client, input.agentId, locked, previous, 'rolled_back', input.keyId);
  });
}

/**
 * Sets the shares of new sessions that go to revisions other than the live one (replacing the shares
 * before; `{}` ends them). Percents are integers; a 0 drops a revision; together at most 100.
 */
export async function setTraffic(
  db: Db,
  input: { agentId: string; shares: Record<string, number>; keyId: string | null },
): Promise<{ change: RevisionChange; deliveries: RecordedDeliveries }> {
  return inTransaction(db, async (client) => {
    const locked = await lockAgent(client, input.agentId);
    const traffic: TrafficShares = {};
    for (const [key, percent] of Object.entries(input.shares)) {
      const revision = Number(key);
      const path = `/${key}`;
      if (!/^[1-9][0-9]{0,8}$/.test(key))
        throw new ValidationError(`"${key}" is not a revision number`, [{ path, message: 'is not a revision number' }]);
      refuseUnknown(revision, locked);
      if (revision === locked.live)
        throw new ValidationError(`Revision ${revision} is live: it gets the share the others leave`, [
          { path, message: 'is the live revision' },
        ]);
      if (percent > 0) traffic[String(revision)] = percent;
    }
    const total = Object.values(traffic).reduce((sum, percent) => sum + percent, 0);
    if (total > 100)
      throw new ValidationError(`The shares add up to ${total}%, more than 100%`, [{ path: '', message: 'adds up to more than 100' }]);
    if (Object.keys(traffic).length > TRAFFIC_MAX_REVISIONS)
      throw new ValidationError(`At most ${TRAFFIC_MAX_REVISIONS} revisions share traffic with the live one`, [
        { path: '', message: 'names too many revisions' },
      ]);
    await client.query('UPDATE agents SET traffic = $2, updated_at = now() WHERE id = $1', [input.agentId, JSON.stringify(traffic)]);
    // A revision given a share serves sessions: it is no longer only staged.
    await client.query('UPDATE agent_revisions SET never_live = false WHERE agent_id = $1 AND revision = ANY($2) AND never_live', [
      input.agentId,
      Object.keys(traffic).map(Number),
    ]);
    return recordChange(client, ownerOf(locked), {
      agentId: input.agentId,
      kind: 'traffic',
      revision: null,
      liveBefore: locked.live,
      liveAfter: locked.live,
      traffic,
      keyId: input.keyId,
    });
  });
}
