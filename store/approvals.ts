// Approvals and their dispatches. Written by the approval workflow's activities (every write
// idempotent and guarded by the current status, so a replayed or racing write changes nothing),
// read by the API. A change of status is announced on the events channel as `<approvalId>:0`, so
// a `GET /approval/<id>?wait=` held by any API process wakes at once.
import { backendGone, ORPHANED_AFTER_MS } from './backend-gone.ts';
import type { Db, DbClient } from './db.ts';
import { EVENTS_CHANNEL } from './event-channel.ts';
import type { ApprovalSource, ApprovalStatus } from '../lib/workflow-safe/approvals.ts';
import type { AnswerVia } from '../contract/approvals.ts';
import type { TeamRequest, TeamRule } from '../lib/workflow-safe/approval-quorum.ts';

export interface Dispatch {
  position: number;
  provider: string;
  answerVia: 'reply' | 'signed-url';
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  attempts: number;
  externalRef: string | null;
  error: string | null;
  updatedAt: Date;
}

export interface Approval {
  id: string;
  userId: string;
  agentId: string | null;
  revision: number | null;
  sessionId: string | null;
  source: ApprovalSource;
  turnId: string | null;
  toolCallId: string | null;
  question: string;
  options: string[];
  status: ApprovalStatus;
  choice: string | null;
  note: string | null;
  answeredVia: AnswerVia | null;
  /** The API stored the answer and its workflow has not said it took it yet. */
  answerPending: boolean;
  createdAt: Date;
  expiresAt: Date;
  answeredAt: Date | null;
  expiredAt: Date | null;
  /** The W3C traceparent of where it was asked, while tracing was on (lib/genai-spans.ts). */
  traceParent: string | null;
  /**
   * Whose `userChannels` its dispatches go over when not the asking agent's: the first caller of a
   * chain of agent calls it was asked in (store/approval-requests.ts).
   */
  channelsFrom: { agentId: string; revision: number } | null;
  /** A connect approval: it asks its user to sign in to this MCP server of theirs, and only a sign-in answers it. */
  connectServer: string | null;
  /** Who may answer it and how many must agree (store/approval-votes.ts); null: anyone holding it, once. */
  team: TeamRule | null;
  /** Of an approval a team answered: the approver whose vote decided it, and the votes per option then. */
  decidedBy: string | null;
  tally: Record<string, number> | null;
}

export interface ApprovalRow {
  id: string;
  user_id: string;
  agent_id: string | null;
  revision: number | null;
  session_id: string | null;
  source: ApprovalSource;
  turn_id: string | null;
  tool_call_id: string | null;
  question: string;
  options: string[];
  status: ApprovalStatus;
  choice: string | null;
  note: string | null;
  answered_via: AnswerVia | null;
  answer_pending: boolean;
  created_at: Date;
  expires_at: Date;
  answered_at: Date | null;
  expired_at: Date | null;
  trace_parent: string | null;
  channels_agent_id: string | null;
  channels_revision: number | null;
  connect_server: string | null;
  quorum: number | null;
  deny_wins: boolean | null;
  refusing_option: string | null;
  decided_by: string | null;
  tally: Record<string, number> | null;
}

export function toApproval(row: ApprovalRow): Approval {
  return {
    id: row.id,
    userId: row.user_id,
    agentId: row.agent_id,
    revision: row.revision,
    sessionId: row.session_id,
    source: row.source,
    turnId: row.turn_id,
    toolCallId: row.tool_call_id,
    question: row.question,
    options: row.options,
    status: row.status,
    choice: row.choice,
    note: row.note,
    answeredVia: row.answered_via,
    answerPending: row.answer_pending,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    answeredAt: row.answered_at,
    expiredAt: row.expired_at,
    traceParent: row.trace_parent,
    channelsFrom:
      row.channels_agent_id !== null && row.channels_revision !== null
        ? { agentId: row.channels_agent_id, revision: row.channels_revision }
        : null,
    connectServer: row.connect_server,
    team: row.quorum !== null ? { quorum: row.quorum, denyWins: row.deny_wins ?? false, refusing: row.refusing_option } : null,
    decidedBy: row.decided_by,
    tally: row.tally,
  };
}

export type NewApproval = Pick<
  Approval,
  | 'id'
  | 'userId'
  | 'agentId'
  | 'revision'
  | 'sessionId'
  | 'source'
  | 'turnId'
  | 'toolCallId'
  | 'question'
  | 'options'
  | 'createdAt'
  | 'expiresAt'
> &
  Partial<Pick<Approval, 'traceParent' | 'channelsFrom' | 'connectServer'>> & {
    /** The channels it goes over, in declared order: one pending dispatch each, at the channel's position in `userChannels`. */
    channels: Array<{ position: number; provider: string; answerVia: 'reply' | 'signed-url' }>;
    /** Its approvers as asked: made seats from the user's directory as it is now. */
    team?: TeamRequest;
  };

/** Inserts the approval and its pending dispatches; `created` is false when it existed already. */
export async function insertApproval(client: DbClient, approval: NewApproval): Promise<{ approval: Approval; created: boolean }> {
  const { rows } = await client.query<ApprovalRow>(
    `INSERT INTO approvals (id, user_id, agent_id, revision, session_id, source, turn_id, tool_call_id, question, options, created_at, expires_at,
                            trace_parent, channels_agent_id, channels_revision, connect_server)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT (id) DO NOTHING RETURNING *`,
    [
      approval.id,
      approval.userId,
      approval.agentId,
      approval.revision,
      approval.sessionId,
      approval.source,
      approval.turnId,
      approval.toolCallId,
      approval.question,
      JSON.stringify(approval.options),
      approval.createdAt,
      approval.expiresAt,
      approval.traceParent ?? null,
      approval.channelsFrom?.agentId ?? null,
      approval.channelsFrom?.revision ?? null,
      approval.connectServer ?? null,
    ],
  );
  if (!rows[0]) return { approval: (await getApproval(client, approval.id))!, created: false };
  for (const channel of approval.channels) {
    await client.query('INSERT INTO approval_dispatches (approval_id, position, provider, answer_via) VALUES ($1, $2, $3, $4)', [
      approval.id,
      channel.position,
      channel.provider,
      channel.answerVia,
    ]);
  }
  return { approval: toApproval(rows[0]), created: true };
}

/** Of these approvals, those answered longer than `graceMs` ago (api/approvals/reconcile.ts). */
export async function answeredBefore(db: Db, ids: readonly string[], graceMs: number): Promise<Approval[]> {
  const { rows } = await db.query<ApprovalRow>(
    // An answer the API stored and signalled (answer_pending) is the hand-over sweep's (api/approvals/handover.ts).
    `SELECT * FROM approvals WHERE id = ANY($1) AND status = 'answered' AND NOT answer_pending
        AND answered_at < now() - make_interval(secs => $2 / 1000.0)`,
    [ids, graceMs],
  );
  return rows.map(toApproval);
}

export async function getApproval(db: Db | DbClient, id: string): Promise<Approval | undefined> {
  const { rows } = await db.query<ApprovalRow>('SELECT * FROM approvals WHERE id = $1', [id]);
  return rows[0] && toApproval(rows[0]);
}

export async function getDispatches(db: Db | DbClient, approvalId: string): Promise<Dispatch[]> {
  const { rows } = await db.query<{
    position: number;
    provider: string;
    answer_via: 'reply' | 'signed-url';
    status: Dispatch['status'];
    attempts: number;
    external_ref: string | null;
    error: string | null;
    updated_at: Date;
  }>('SELECT * FROM approval_dispatches WHERE approval_id = $1 ORDER BY position', [approvalId]);
  return rows.map((row) => ({
    position: row.position,
    provider: row.provider,
    answerVia: row.answer_via,
    status: row.status,
    attempts: row.attempts,
    externalRef: row.external_ref,
    error: row.error,
    updatedAt: row.updated_at,
  }));
}

export interface ApprovalPage {
  approvals: Approval[];
  /** Cursor for the next page (the last approval's id), or null at the end. */
  next: string | null;
}

/** A user's approvals, newest first, paged by (created_at, id) after the approval `before`. */
export async function listApprovals(
  db: Db,
  userId: string,
  filter: { status?: ApprovalStatus; sessionId?: string; before?: string; limit: number },
): Promise<ApprovalPage> {
  const { rows } = await db.query<ApprovalRow>(
    `SELECT a.* FROM approvals a
      WHERE a.user_id = $1
        AND ($2::text IS NULL OR a.status = $2)
        AND ($3::text IS NULL OR a.session_id = $3)
        AND ($4::text IS NULL OR (a.created_at, a.id) < (SELECT created_at, id FROM approvals WHERE id = $4 AND user_id = $1))
      ORDER BY a.created_at DESC, a.id DESC
      LIMIT $5`,
    [userId, filter.status ?? null, filter.sessionId ?? null, filter.before ?? null, filter.limit + 1],
  );
  const page = rows.slice(0, filter.limit).map(toApproval);
  return { approvals: page, next: rows.length > filter.limit ? page[page.length - 1]!.id : null };
}

export async function announce(client: DbClient, approvalId: string): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, `${approvalId}:0`]);
}

/**
 * Records the answer if the approval is still unanswered. Returns the approval as it now stands,
 * with `changed` telling whether this call answered it.
 */
export async function markAnswered(
  client: DbClient,
  input: { approvalId: string; choice: string; note: string | null; via: AnswerVia },
  /**
   * The API takes the answer, not the workflow: refused past the expiry (the workflow's timer may not
   * have fired: no worker runs), and pending until the workflow says it took it (answerHandedOver).
   */
  byApi = false,
): Promise<{ approval: Approval; changed: boolean }> {
  const { rows } = await client.query<ApprovalRow>(
    `UPDATE approvals SET status = 'answered', choice = $2, note = $3, answered_via = $4, answered_at = now(), answer_pending = $5,
           answered_by_backend = pg_backend_pid()
      WHERE id = $1 AND status = 'unanswered' AND (NOT $5 OR expires_at > now()) RETURNING *`,
    [input.approvalId, input.choice, input.note, input.via, byApi],
  );
  if (rows[0]) {
    await announce(client, input.approvalId);
    return { approval: toApproval(rows[0]), changed: true };
  }
  return { approval: (await getApproval(client, input.approvalId))!, changed: false };
}

/** The approval's workflow took the answer the API stored (or has ended): no more hand-overs. True: this call said so. */
export async function answerHandedOver(db: Db, approvalId: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE approvals SET answer_pending = false WHERE id = $1 AND answer_pending', [approvalId]);
  return (rowCount ?? 0) > 0;
}

/** Answers the API stored more than `olderThanMs` ago that their workflow has not said it took (`userId`: only that user's). */
export async function pendingAnswers(
  db: Db,
  olderThanMs: number,
  limit: number,
  userId?: string,
  orphanedAfterMs = ORPHANED_AFTER_MS,
): Promise<Approval[]> {
  const { rows } = await db.query<ApprovalRow>(
    `SELECT * FROM approvals
      WHERE answer_pending AND ($3::text IS NULL OR user_id = $3)
        AND (answered_at < now() - $1 * interval '1 millisecond'
             OR (answered_at < now() - $4 * interval '1 millisecond' AND ${backendGone('answered_by_backend')}))
      ORDER BY answered_at LIMIT $2`,
    [olderThanMs, limit, userId ?? null, orphanedAfterMs],
  );
  return rows.map(toApproval);
}

export async function markExpired(client: DbClient, approvalId: string): Promise<{ approval: Approval; changed: boolean }> {
  const { rows } = await client.query<ApprovalRow>(
    `UPDATE approvals SET status = 'expired', expired_at = now() WHERE id = $1 AND status = 'unanswered' RETURNING *`,
    [approvalId],
  );
  if (rows[0]) {
    await announce(client, approvalId);
    return { approval: toApproval(rows[0]), changed: true };
  }
  return { approval: (await getApproval(client, approvalId))!, changed: false };
}

/** One attempt at one channel: `sent` with the provider's reference, or its error (`failed` once final). */
export async function recordDispatchAttempt(
  db: Db,
  input: { approvalId: string; position: number; status: Dispatch['status']; externalRef?: string | null; error?: string | null },
): Promise<void> {
  await db.query(
    `UPDATE approval_dispatches
        SET status = CASE WHEN status = 'sent' THEN status ELSE $3 END,
            attempts = attempts + 1, external_ref = COALESCE($4, external_ref), error = $5, updated_at = now()
      WHERE approval_id = $1 AND position = $2`,
    [input.approvalId, input.position, input.status, input.externalRef ?? null, input.error ?? null],
  );
}

export interface DispatchMatch {
  approvalId: string;
  position: number;
  userId: string;
  /** The agent (and revision) whose `userChannels[position]` the dispatch went over (Approval.channelsFrom, or the asking agent). */
  agentId: string | null;
  revision: number | null;
}

/**
 * Dispatches with their approval's owner and the agent whose channels they went over, as the inbound route needs
 * them: the user's channels' (`approval_dispatches`), or the messages sent to approvers (`approval_seat_messages`,
 * whose position is the seat's).
 */
export async function findDispatches(
  db: Db,
  where: string,
  params: unknown[],
  order: string,
  table: 'approval_dispatches' | 'approval_seat_messages' = 'approval_dispatches',
): Promise<DispatchMatch[]> {
  const { rows } = await db.query<{
    approval_id: string;
    position: number;
    user_id: string;
    agent_id: string | null;
    revision: number | null;
  }>(
    `SELECT d.approval_id, d.position, a.user_id,
            COALESCE(a.channels_agent_id, a.agent_id) AS agent_id, COALESCE(a.channels_revision, a.revision) AS revision
       FROM ${table} d JOIN approvals a ON a.id = d.approval_id
      WHERE ${where} ORDER BY ${order} LIMIT 10`,
    params,
  );
  return rows.map((row) => ({
    approvalId: row.approval_id,
    position: row.position,
    userId: row.user_id,
    agentId: row.agent_id,
    revision: row.revision,
  }));
}

/** The dispatches a provider's reference names. Usually one; two tenants' bots can share a chat's numbering. */
export function findDispatchesByRef(db: Db, provider: string, externalRef: string): Promise<DispatchMatch[]> {
  return findDispatches(db, 'd.provider = $1 AND d.external_ref = $2', [provider, externalRef], 'a.created_at DESC');
}

/** The dispatches of one approval over one provider (inbound email and webhook replies name the approval). */
export function findDispatchesOfApproval(db: Db, approvalId: string, provider: string): Promise<DispatchMatch[]> {
  return findDispatches(db, 'd.approval_id = $1 AND d.provider = $2', [approvalId, provider], 'd.position');
}

/**
 * Dispatches left `pending`: never sent because the approval was decided first (`skipped`), or whose
 * last attempt never reported, e.g. it timed out (`failed`). `position` narrows it to one.
 */
export async function closePendingDispatches(
  db: Db,
  input: { approvalId: string; status: 'skipped' | 'failed'; error: string; position?: number },
): Promise<void> {
  await db.query(
    `UPDATE approval_dispatches SET status = $2, error = COALESCE(error, $3), updated_at = now()
      WHERE approval_id = $1 AND status = 'pending' AND ($4::int IS NULL OR position = $4)`,
    [input.approvalId, input.status, input.error, input.position ?? null],
  );
}

/** A user's unanswered connect approvals for one MCP server of theirs: a finished sign-in answers them all. */
export async function openConnectApprovals(db: Db, userId: string, serverId: string): Promise<Approval[]> {
  const { rows } = await db.query<ApprovalRow>(
    `SELECT * FROM approvals WHERE user_id = $1 AND connect_server = $2 AND status = 'unanswered' ORDER BY created_at LIMIT 100`,
    [userId, serverId],
  );
  return rows.map(toApproval);
}
