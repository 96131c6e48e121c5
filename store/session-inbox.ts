// A send is taken here, by the API, with no worker involved: the user message, its `message.created` and
// its inbox row in one transaction under the session's lock (schema/migrations/0030_session_inbox.sql).
// The session workflow, woken by a signal the engine takes without a worker, reads the rows in seq order
// (takeInbox); a row leaves when its turn writes its end (store/events.ts). So a send is durable,
// ordered and visible the moment PostgreSQL has it, however far behind the workers are.
import { backendGone, ORPHANED_AFTER_MS } from './backend-gone.ts';
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import type { MessagePart } from '../contract/events.ts';
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import type { IfBusy } from '../contract/if-busy.ts';
import type { ModelOverride } from '../core/turn-types.ts';
import type { InboxSend, JoinedTurn, SubtaskReplyTarget } from '../core/session-turns.ts';

export type { InboxSend };
import { insertMessage } from './messages.ts';
import { revertFromIn, type RevertOutcome } from './revert.ts';
import { sessionHasEvent } from './events.ts';
import { storedToolAnswer, type ClientToolAnswer, type StoredToolAnswer } from './client-tool-answers.ts';

/** ifBusy=reject found a turn running or sends waiting. */
export class SessionBusyNowError extends Error {
  override name = 'SessionBusyNow';
}

/** The user already has `limit` sends waiting for their turns. */
export class InboxFullError extends Error {
  override name = 'InboxFull';
  constructor(readonly limit: number) {
    super(`${limit} sends of this user are waiting for their turns`);
  }
}

export interface SendToTake {
  sessionId: string;
  userId: string;
  messageId: string;
  parts: MessagePart[];
  ifBusy: IfBusy;
  model?: ModelOverride;
  replyTo?: SubtaskReplyTarget;
  /** How many of the user's sends may wait for their turns at once (QUEUED_SENDS_PER_USER). */
  maxWaitingPerUser: number;
}

export interface TakenSend {
  /** seq of the message's `message.created`: the turn's events follow it. */
  seq: number;
  /** A steering message joined this running turn. */
  joined?: JoinedTurn;
}

interface InboxRow {
  message_id: string;
  seq: string | number;
  turn_id: string;
  if_busy: Exclude<IfBusy, 'reject'>;
  model: ModelOverride | null;
  reply_to: SubtaskReplyTarget | null;
  regenerate: boolean | null;
}

/**
 * Takes a send: once per message id (a retry under the same Idempotency-Key finds the first one and
 * answers the same), refused for ifBusy=reject while anything runs or waits, and for a user with
 * `maxWaitingPerUser` sends waiting. A steering send joins the session's running turn when there is one
 * whose end is not written (its last step reads the message before it ends: store/messages.ts).
 */
export async function takeSend(db: Db, send: SendToTake): Promise<TakenSend> {
  try {
    return await takeSendOnce(db, send);
  } catch (error) {
    // The same message taken at the same moment by a twin request (one Idempotency-Key, sent twice at once):
    // the state read under the lock came from before the twin committed. Read again, and answer as it did.
    if (!isDuplicateMessage(error)) throw error;
    return takeSendOnce(db, send);
  }
}

function isDuplicateMessage(error: unknown): boolean {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === 'messages_pkey';
}

async function takeSendOnce(db: Db, send: SendToTake): Promise<TakenSend> {
  return inTransaction(db, async (client) => {
    const state = await lockedSendState(client, send);
    if (state.known) return state.known;
    if (send.ifBusy === 'reject' && (state.status !== 'idle' || state.waitingHere))
      throw new SessionBusyNowError('A turn is running in this session');
    // Refused here without a write when the bound is plainly reached; near it, confirmed once the row is in.
    if (state.waitingOfUser >= send.maxWaitingPerUser) throw new InboxFullError(send.maxWaitingPerUser);
    const joined = send.ifBusy === 'steer' && state.status !== 'idle' ? await runningTurn(client, send.sessionId) : undefined;
    const { events } = await insertMessage(client, {
      id: send.messageId,
      sessionId: send.sessionId,
      turnId: joined?.userMessageId ?? send.messageId,
      role: 'user',
      parts: send.parts,
      status: 'complete',
    });
    await client.query(
      `WITH row AS (
         INSERT INTO session_inbox (message_id, session_id, user_id, seq, turn_id, if_busy, model, reply_to)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       )
       UPDATE sessions SET status = 'running' WHERE id = $2 AND status = 'idle'`,
      [
        send.messageId,
        send.sessionId,
        send.userId,
        events.at(-1)!.seq,
        joined?.turnId ?? send.messageId,
        send.ifBusy === 'reject' ? 'queue' : send.ifBusy,
        send.model ? JSON.stringify(send.model) : null,
        send.replyTo ? JSON.stringify(send.replyTo) : null,
      ],
    );
    if (state.waitingOfUser + 1 + TAKES_AT_ONCE > send.maxWaitingPerUser)
      await confirmWithinBound(client, send.userId, send.maxWaitingPerUser);
    return { seq: events.at(-1)!.seq, ...(joined ? { joined } : {}) };
  });
}

/**
 * A regeneration taken as a send is: the revert from reply `messageId` (store/revert.ts) and the inbox row
 * of the turn that answers its user message again (`turnId`, a new id), in one transaction under the
 * session's lock. Refused as a revert is (SessionBusyError while anything runs or waits, MessageNotFoundError,
 * NotAnAssistantMessageError), and InboxFullError for a user with `maxWaitingPerUser` sends waiting.
 */
export async function takeRegeneration(
  db: Db,
  input: { sessionId: string; userId: string; messageId: string; turnId: string; model?: ModelOverride; maxWaitingPerUser: number },
): Promise<RevertOutcome> {
  return inTransaction(db, async (client) => {
    const reverted = await revertFromIn(client, {
      sessionId: input.sessionId,
      messageId: input.messageId,
      requireAssistant: true,
      // Reverted by another request since it was checked: there is no reply left to regenerate.
      refuseReverted: true,
    });
    await client.query(
      `WITH row AS (
         INSERT INTO session_inbox (message_id, session_id, user_id, seq, turn_id, if_busy, model, regenerate)
         VALUES ($1, $2, $3, $4, $5, 'queue', $6, true)
       )
       UPDATE sessions SET status = 'running' WHERE id = $2 AND status = 'idle'`,
      [reverted.userMessageId, input.sessionId, input.userId, reverted.seq, input.turnId, input.model ? JSON.stringify(input.model) : null],
    );
    await confirmWithinBound(client, input.userId, input.maxWaitingPerUser);
    return reverted;
  });
}

/**
 * A take whose count is this far below the bound skips confirmWithinBound: its count misses only the takes
 * of the same user that commit while it runs, which stay fewer than this (a process takes at most as many
 * at once as its pool has connections, 10, in milliseconds each). A flood past that could pass the bound
 * by the takes that skipped, never more.
 */
const TAKES_AT_ONCE = 64;

/**
 * The last step of a take near the user's bound (a regeneration's, always), its inbox row written: one
 * user's takes pass here one at a time, whatever their sessions, and each counts the user's waiting sends
 * with its own row and those of the takes before it (committed: the lock is held to the end of the
 * transaction). Past the bound, the take is undone. The count under the session's lock alone was not
 * enough: sends to several sessions at once each counted the others as not there yet, and more than the
 * bound were taken. Taken last, the lock is held only for the count and the commit; the count is a
 * statement of its own, so its snapshot is taken once it is held. Only near the bound: there a flood's
 * sends wait on each other, which a user far from it never does; at the default rate limit
 * (RATE_LIMIT_POINTS, 600 a minute) a user's sends seldom meet here. Refusing a take that finds the lock
 * held instead (pg_try_advisory_xact_lock) refused sends far below a small bound whenever two came
 * together (docs/benchmarks.md, "Figures behind choices in the code").
 */
async function confirmWithinBound(client: DbClient, userId: string, max: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`sends:${userId}`]);
  const { rows } = await client.query<{ mine: string }>('SELECT count(*) AS mine FROM session_inbox WHERE user_id = $1', [userId]);
  if (Number(rows[0]!.mine) > max) throw new InboxFullError(max);
}

/**
 * One statement under the session's lock: its status, the message if it was taken before (a retry under
 * the same Idempotency-Key) with the turn it joined, and the sends waiting here and of its user.
 */
async function lockedSendState(
  client: DbClient,
  send: SendToTake,
): Promise<{ status: string; known?: TakenSend; waitingHere: boolean; waitingOfUser: number }> {
  const { rows } = await client.query<{
    status: string;
    position: string | number | null;
    turn_id: string | null;
    joined_turn: string | null;
    here: boolean;
    mine: string;
  }>(
    `SELECT s.status, m.position, m.turn_id,
            (SELECT e.data->>'turnId' FROM events e
              WHERE m.turn_id <> m.id AND e.session_id = s.id AND e.type = 'turn.started'
                AND coalesce(e.data->>'userMessageId', e.data->>'turnId') = m.turn_id
              ORDER BY e.seq DESC LIMIT 1) AS joined_turn,
            EXISTS (SELECT 1 FROM session_inbox WHERE session_id = s.id) AS here,
            (SELECT count(*) FROM session_inbox WHERE user_id = $3) AS mine
       FROM sessions s LEFT JOIN messages m ON m.id = $2 AND m.session_id = s.id
      WHERE s.id = $1
        FOR UPDATE OF s`,
    [send.sessionId, send.messageId, send.userId],
  );
  const row = rows[0];
  if (!row) throw new Error(`Session ${send.sessionId} does not exist`);
  const joined =
    row.turn_id !== null && row.turn_id !== send.messageId
      ? { turnId: row.joined_turn ?? row.turn_id, userMessageId: row.turn_id }
      : undefined;
  const known = row.position !== null ? { seq: Number(row.position), ...(joined ? { joined } : {}) } : undefined;
  return { status: row.status, ...(known ? { known } : {}), waitingHere: row.here, waitingOfUser: Number(row.mine) };
}

/** The session's started turn whose end is not written, if any (under the session's lock). */
async function runningTurn(client: DbClient, sessionId: string): Promise<JoinedTurn | undefined> {
  const { rows } = await client.query<{ turn_id: string; user_message_id: string }>(
    `SELECT data->>'turnId' AS turn_id, coalesce(data->>'userMessageId', data->>'turnId') AS user_message_id
       FROM events WHERE session_id = $1 AND type = 'turn.started' ORDER BY seq DESC LIMIT 1`,
    [sessionId],
  );
  const turn = rows[0];
  if (!turn) return undefined;
  if (await sessionHasEvent(client, sessionId, TERMINAL_TURN_EVENTS, { turnId: turn.turn_id })) return undefined;
  return { turnId: turn.turn_id, userMessageId: turn.user_message_id };
}

/** What a take of the session's inbox reads: its sends, and its client tool answers (store/client-tool-answers.ts). */
export interface InboxTake {
  sends: InboxSend[];
  answers: StoredToolAnswer[];
}

/**
 * The session's sends whose turns have not ended, in seq order, marked taken; and the client tool answers
 * of turns not ended, marked read, oldest first. Read again by every take (the workflow knows which it has
 * seen), so a take retried after its workflow task was lost misses none. One statement for both.
 */
export async function takeInbox(db: Db, sessionId: string): Promise<InboxTake> {
  // Marks only the rows not marked yet (a row rewritten at every take would leave a dead tuple each time);
  // the SELECTs read the rows as they were before the UPDATEs, all of them.
  const { rows } = await db.query<InboxRow & { kind: 'send' | 'answer'; tool_call_id: string | null; answer: ClientToolAnswer | null }>(
    `WITH marked AS (UPDATE session_inbox SET taken = true WHERE session_id = $1 AND NOT taken),
          woken AS (UPDATE client_tool_answers SET woken = true WHERE session_id = $1 AND NOT woken)
     SELECT 'send' AS kind, message_id, seq, turn_id, if_busy, model, reply_to, regenerate, NULL AS tool_call_id,
            NULL::jsonb AS answer, NULL::timestamptz AS created_at
       FROM session_inbox WHERE session_id = $1
     UNION ALL
     SELECT 'answer', message_id, NULL, NULL, NULL, NULL, NULL, NULL, tool_call_id, answer, created_at
       FROM client_tool_answers WHERE session_id = $1 AND NOT settled AND answer IS NOT NULL
     ORDER BY created_at`,
    [sessionId],
  );
  const sends = rows
    .filter((row) => row.kind === 'send')
    .map((row) => ({
      messageId: row.message_id,
      seq: Number(row.seq),
      turnId: row.turn_id,
      ifBusy: row.if_busy,
      ...(row.model ? { model: row.model } : {}),
      ...(row.reply_to ? { replyTo: row.reply_to } : {}),
      ...(row.regenerate ? { regenerate: true as const } : {}),
    }))
    .sort((a, b) => a.seq - b.seq);
  const answers = rows.flatMap((row) =>
    row.kind === 'answer' ? [storedToolAnswer({ message_id: row.message_id, tool_call_id: row.tool_call_id!, answer: row.answer! })] : [],
  );
  return { sends, answers };
}

/**
 * Steering messages the API joined to a turn that will never read them (a session run that ended
 * without its turn's end): their rows become sends of their own, so the turn's end does not take them
 * out of the inbox and they run as turns of their own.
 */
export async function detachFromTurn(db: Db, sessionId: string, turnId: string): Promise<void> {
  // A regeneration's row names its own turn, not one it joined: it leaves with that turn's end.
  await db.query(
    'UPDATE session_inbox SET turn_id = message_id WHERE session_id = $1 AND turn_id = $2 AND message_id <> $2 AND NOT regenerate',
    [sessionId, turnId],
  );
}

/**
 * Sessions with sends (or client tool answers) no workflow has read after `olderThanMs`: their wake-up
 * signal was lost. `userId`: only that user's (the tests', which share one database).
 */
export async function sessionsWithUntakenSends(
  db: Db,
  olderThanMs: number,
  limit: number,
  userId?: string,
  orphanedAfterMs = ORPHANED_AFTER_MS,
): Promise<{ sessionId: string; userId: string; agentId: string; revision: number }[]> {
  // Waiting long enough, or stored by a backend that has gone (its API died before its wake-up).
  const lost = `(created_at < now() - $1 * interval '1 millisecond'
                 OR (created_at < now() - $4 * interval '1 millisecond' AND ${backendGone('stored_by_backend')}))`;
  const { rows } = await db.query<{ id: string; user_id: string; agent_id: string; revision: number }>(
    `SELECT s.id, s.user_id, s.agent_id, s.revision FROM sessions s
      WHERE s.id IN (SELECT session_id FROM session_inbox
                      WHERE NOT taken AND ${lost} AND ($3::text IS NULL OR user_id = $3)
                     UNION ALL
                     -- A client's tool answer rides the same wake-up (store/client-tool-answers.ts).
                     SELECT session_id FROM client_tool_answers
                      WHERE NOT woken AND ${lost} AND ($3::text IS NULL OR user_id = $3))
      LIMIT $2`,
    [olderThanMs, limit, userId ?? null, orphanedAfterMs],
  );
  return rows.map((row) => ({ sessionId: row.id, userId: row.user_id, agentId: row.agent_id, revision: row.revision }));
}

/**
 * The turn an abort of the session is for: its running turn (started, its end not written), else the
 * turn of its first waiting send. Undefined when PostgreSQL shows neither (a turn that did not come
 * through the inbox, a trigger's say, before its first step starts).
 */
export async function turnToAbort(db: Db, sessionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ turn_id: string | null }>(
    `SELECT coalesce(
       (SELECT t.turn_id FROM (SELECT e.data->>'turnId' AS turn_id FROM events e
                                WHERE e.session_id = $1 AND e.type = 'turn.started' ORDER BY e.seq DESC LIMIT 1) t
         WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = $1 AND e.type = ANY($2)
                             AND e.data @> jsonb_build_object('turnId', t.turn_id))),
       (SELECT turn_id FROM session_inbox WHERE session_id = $1 ORDER BY seq LIMIT 1)) AS turn_id`,
    [sessionId, TERMINAL_TURN_EVENTS],
  );
  return rows[0]?.turn_id ?? undefined;
}

export interface TakenCallSend {
  sessionId: string;
  userId: string;
  agentId: string;
  revision: number;
  messageId: string;
}

/**
 * Sends of other agents' calls (and graph nodes' agent calls) that a session workflow took more than
 * `olderThanMs` ago and whose turns have not ended: each has a caller waiting for it. The stranded-call
 * sweep checks that their workflows still run (api/sessions/stranded-calls.ts). Oldest first.
 */
export async function takenCallSends(db: Db, olderThanMs: number, limit: number): Promise<TakenCallSend[]> {
  const { rows } = await db.query<{ session_id: string; user_id: string; agent_id: string; revision: number; message_id: string }>(
    `SELECT i.session_id, s.user_id, s.agent_id, s.revision, i.message_id
       FROM session_inbox i JOIN sessions s ON s.id = i.session_id
      WHERE i.taken AND i.reply_to ? 'toolCallId' AND i.created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY i.created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return rows.map((row) => ({
    sessionId: row.session_id,
    userId: row.user_id,
    agentId: row.agent_id,
    revision: row.revision,
    messageId: row.message_id,
  }));
}

/** Where the reply of the send that started turn `turnId` goes (another agent's call, a subtask), while its row is here. */
export async function replyTargetOf(db: Db, sessionId: string, turnId: string): Promise<SubtaskReplyTarget | undefined> {
  const { rows } = await db.query<{ reply_to: SubtaskReplyTarget | null }>(
    'SELECT reply_to FROM session_inbox WHERE session_id = $1 AND message_id = $2',
    [sessionId, turnId],
  );
  return rows[0]?.reply_to ?? undefined;
}
