// The approvers directory of each user: people (with the addresses they are asked at) and named groups
// of them. Writes that could break "every member is an approver" (writing a group, deleting an
// approver) and writes that count against a cap lock the user's row first, so one user's take turns.
import { inTransaction, type Db, type DbClient } from './db.ts';
import { GROUP_PREFIX, ME } from '../contract/approvals.ts';

export interface ApproverAddresses {
  email: string | null;
  slackUserId: string | null;
  telegramChatId: string | null;
  webhookUrl: string | null;
}

export interface Approver extends ApproverAddresses {
  name: string;
  /** The groups it is a member of, by name. */
  groups: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface ApproverGroup {
  name: string;
  members: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** One person who may answer an approval, with where they are asked. */
export interface ApproverSeat {
  name: string;
  email: string | null;
  slackUserId: string | null;
  telegramChatId: string | null;
  webhookUrl: string | null;
}

interface AddressRow {
  name: string;
  email: string | null;
  slack_user_id: string | null;
  telegram_chat_id: string | null;
  webhook_url: string | null;
}

interface ApproverRow extends AddressRow {
  groups: string[];
  created_at: Date;
  updated_at: Date;
}

interface GroupRow {
  name: string;
  members: string[];
  created_at: Date;
  updated_at: Date;
}

const seat = (row: AddressRow): ApproverSeat => ({
  name: row.name,
  email: row.email,
  slackUserId: row.slack_user_id,
  telegramChatId: row.telegram_chat_id,
  webhookUrl: row.webhook_url,
});

const toApprover = (row: ApproverRow): Approver => ({
  ...seat(row),
  groups: row.groups,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toGroup = (row: GroupRow): ApproverGroup => ({
  name: row.name,
  members: row.members,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** An approver's columns and the groups naming it; `a` is the approvers row. */
const APPROVER_COLUMNS = (a: string) =>
  `${a}.name, ${a}.email, ${a}.slack_user_id, ${a}.telegram_chat_id, ${a}.webhook_url, ${a}.created_at, ${a}.updated_at,
   ARRAY(SELECT g.name FROM approver_groups g WHERE g.user_id = ${a}.user_id AND ${a}.name = ANY(g.members) ORDER BY g.name) AS groups`;

/**
 * NO KEY UPDATE, not UPDATE: it serialises these writes as well, without holding up inserts elsewhere
 * whose foreign keys reference the user (those take KEY SHARE, which only UPDATE blocks).
 */
async function lockUser(client: DbClient, userId: string): Promise<void> {
  await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
}

/** Adds or replaces an approver; `created` tells which. Past `maxApprovers` a new name is not stored (undefined). */
export async function putApprover(
  db: Db,
  userId: string,
  name: string,
  addresses: ApproverAddresses,
  maxApprovers: number,
): Promise<(Approver & { created: boolean }) | undefined> {
  return inTransaction(db, async (client) => {
    await lockUser(client, userId);
    const { rows } = await client.query<ApproverRow & { inserted: boolean }>(
      `INSERT INTO approvers (user_id, name, email, slack_user_id, telegram_chat_id, webhook_url)
       SELECT $1, $2, $3, $4, $5, $6
        WHERE EXISTS (SELECT 1 FROM approvers WHERE user_id = $1 AND name = $2)
           OR (SELECT count(*) FROM approvers WHERE user_id = $1) < $7
       ON CONFLICT (user_id, name) DO UPDATE
         SET email = EXCLUDED.email, slack_user_id = EXCLUDED.slack_user_id, telegram_chat_id = EXCLUDED.telegram_chat_id,
             webhook_url = EXCLUDED.webhook_url, updated_at = now()
       RETURNING ${APPROVER_COLUMNS('approvers')}, (xmax = 0) AS inserted`,
      [userId, name, addresses.email, addresses.slackUserId, addresses.telegramChatId, addresses.webhookUrl, maxApprovers],
    );
    const row = rows[0];
    return row && { ...toApprover(row), created: row.inserted };
  });
}

export async function listApprovers(db: Db, userId: string): Promise<Approver[]> {
  const { rows } = await db.query<ApproverRow>(`SELECT ${APPROVER_COLUMNS('a')} FROM approvers a WHERE a.user_id = $1 ORDER BY a.name`, [
    userId,
  ]);
  return rows.map(toApprover);
}

export async function getApprover(db: Db, userId: string, name: string): Promise<Approver | undefined> {
  const { rows } = await db.query<ApproverRow>(`SELECT ${APPROVER_COLUMNS('a')} FROM approvers a WHERE a.user_id = $1 AND a.name = $2`, [
    userId,
    name,
  ]);
  return rows[0] && toApprover(rows[0]);
}

export async function countApprovers(db: Db | DbClient, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM approvers WHERE user_id = $1', [userId]);
  return rows[0]!.n;
}

/** Deletes an approver unless a group still names it: then nothing changes and `memberOf` names those groups. */
export async function deleteApprover(
  db: Db,
  userId: string,
  name: string,
): Promise<{ outcome: 'deleted' } | { outcome: 'missing' } | { outcome: 'member'; memberOf: string[] }> {
  return inTransaction(db, async (client) => {
    await lockUser(client, userId);
    const { rows } = await client.query<{ name: string }>(
      'SELECT name FROM approver_groups WHERE user_id = $1 AND $2 = ANY(members) ORDER BY name',
      [userId, name],
    );
    if (rows.length) return { outcome: 'member', memberOf: rows.map((row) => row.name) };
    const { rowCount } = await client.query('DELETE FROM approvers WHERE user_id = $1 AND name = $2', [userId, name]);
    return { outcome: rowCount ? 'deleted' : 'missing' };
  });
}

/**
 * Creates or replaces a group. Members that are not approvers of the user are refused (`unknown`, as
 * given); past `maxGroups` a new name is refused (`limit`). Either way nothing changes.
 */
export async function putApproverGroup(
  db: Db,
  userId: string,
  name: string,
  members: readonly string[],
  maxGroups: number,
): Promise<
  { outcome: 'stored'; group: ApproverGroup; created: boolean } | { outcome: 'unknown'; unknown: string[] } | { outcome: 'limit' }
> {
  return inTransaction(db, async (client) => {
    await lockUser(client, userId);
    const { rows: known } = await client.query<{ name: string }>('SELECT name FROM approvers WHERE user_id = $1 AND name = ANY($2)', [
      userId,
      members,
    ]);
    const found = new Set(known.map((row) => row.name));
    const unknown = members.filter((member) => !found.has(member));
    if (unknown.length) return { outcome: 'unknown', unknown };
    const { rows } = await client.query<GroupRow & { inserted: boolean }>(
      `INSERT INTO approver_groups (user_id, name, members)
       SELECT $1, $2, $3
        WHERE EXISTS (SELECT 1 FROM approver_groups WHERE user_id = $1 AND name = $2)
           OR (SELECT count(*) FROM approver_groups WHERE user_id = $1) < $4
       ON CONFLICT (user_id, name) DO UPDATE SET members = EXCLUDED.members, updated_at = now()
       RETURNING name, members, created_at, updated_at, (xmax = 0) AS inserted`,
      [userId, name, members, maxGroups],
    );
    const row = rows[0];
    return row ? { outcome: 'stored', group: toGroup(row), created: row.inserted } : { outcome: 'limit' };
  });
}

export async function listApproverGroups(db: Db, userId: string): Promise<ApproverGroup[]> {
  const { rows } = await db.query<GroupRow>(
    'SELECT name, members, created_at, updated_at FROM approver_groups WHERE user_id = $1 ORDER BY name',
    [userId],
  );
  return rows.map(toGroup);
}

export async function getApproverGroup(db: Db, userId: string, name: string): Promise<ApproverGroup | undefined> {
  const { rows } = await db.query<GroupRow>(
    'SELECT name, members, created_at, updated_at FROM approver_groups WHERE user_id = $1 AND name = $2',
    [userId, name],
  );
  return rows[0] && toGroup(rows[0]);
}

export async function deleteApproverGroup(db: Db, userId: string, name: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM approver_groups WHERE user_id = $1 AND name = $2', [userId, name]);
  return (rowCount ?? 0) > 0;
}

/**
 * Expands `names` ("me", approver names, "group:<name>") into distinct seats in first-seen order; "me"
 * is a seat with no addresses. `unknown` lists the names (as given) that name no approver or group of
 * the user. Two queries whatever the number of names: the groups named, then every approver named
 * directly or through them.
 */
export async function resolveApprovers(
  db: Db | DbClient,
  userId: string,
  names: readonly string[],
): Promise<{ seats: ApproverSeat[]; unknown: string[] }> {
  const groupNames = names.filter((name) => name.startsWith(GROUP_PREFIX)).map((name) => name.slice(GROUP_PREFIX.length));
  const groups = new Map<string, string[]>();
  if (groupNames.length) {
    const { rows } = await db.query<{ name: string; members: string[] }>(
      'SELECT name, members FROM approver_groups WHERE user_id = $1 AND name = ANY($2)',
      [userId, groupNames],
    );
    for (const row of rows) groups.set(row.name, row.members);
  }
  const approverNames = [...names.filter((name) => name !== ME && !name.startsWith(GROUP_PREFIX)), ...[...groups.values()].flat()];
  const approvers = new Map<string, ApproverSeat>();
  if (approverNames.length) {
    const { rows } = await db.query<AddressRow>(
      'SELECT name, email, slack_user_id, telegram_chat_id, webhook_url FROM approvers WHERE user_id = $1 AND name = ANY($2)',
      [userId, [...new Set(approverNames)]],
    );
    for (const row of rows) approvers.set(row.name, seat(row));
  }

  const seats = new Map<string, ApproverSeat>();
  const unknown = new Set<string>();
  const take = (found: ApproverSeat) => {
    if (!seats.has(found.name)) seats.set(found.name, found);
  };
  for (const name of names) {
    if (name === ME) {
      take({ name, email: null, slackUserId: null, telegramChatId: null, webhookUrl: null });
    } else if (name.startsWith(GROUP_PREFIX)) {
      const members = groups.get(name.slice(GROUP_PREFIX.length));
      if (!members) unknown.add(name);
      // Members are approvers while their group names them; one is missing only when, between these
      // two reads, a write took it out of the group and deleted it. It is left out, not reported.
      for (const member of members ?? []) {
        const found = approvers.get(member);
        if (found) take(found);
      }
    } else {
      const found = approvers.get(name);
      if (found) take(found);
      else unknown.add(name);
    }
  }
  return { seats: [...seats.values()], unknown: [...unknown] };
}
