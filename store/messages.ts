// Messages of a session. Every write here also appends the event that describes it, in the same
// transaction. Assistant messages are written by model-step attempts; a write names its attempt and
// is refused once a newer attempt owns the message, so a zombie attempt cannot interleave.
import type { Db, DbClient } from './db.ts';
import { releaseBudgetHolds } from './budgets.ts';
import { inTransaction } from './db.ts';
import { appendEvents, lockedSessionHasEvent, sessionHasEvent } from './events.ts';
import type { MessagePart, MessageRole, MessageStatus, MessageView, NewEvent, SessionEvent, TokenUsage } from '../contract/events.ts';
import type { SessionStatus } from './sessions.ts';
import { TERMINAL_TURN_EVENTS } from '../contract/events.ts';
import { turnAgeSql } from './metric-reads.ts';
import { subscribedSql } from './webhook-deliveries.ts';
import { insertPushDeliveries, type RecordedPush } from './a2a-push.ts';
import { addToTotals } from '../core/turn-progress.ts';
import type { JoinedTurn } from '../core/session-turns.ts';

export interface MessageRow {
  id: string;
  session_id: string;
  position: number;
  turn_id: string | null;
  role: MessageRole;
  parts: MessagePart[];
  status: MessageStatus;
  attempt: number;
  model: { providerId: string; modelId: string } | null;
  usage: TokenUsage | null;
  cost_usd: string | null;
  reverted: boolean;
  copied_from: string | null;
  created_at: Date;
}

export function toMessageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    role: row.role,
    parts: row.parts,
    status: row.status,
    turnId: row.turn_id,
    model: row.model,
    usage: row.usage,
    costUsd: row.cost_usd === null ? null : Number(row.cost_usd),
    ...(row.copied_from ? { copiedFrom: row.copied_from } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

export class StaleAttemptError extends Error {
  override name = 'StaleAttemptError';
}

/** Inserts a message and its `message.created` event (after `extraEvents`) in the caller's transaction. */
export async function insertMessage(
  client: DbClient,
  input: {
    id: string;
    sessionId: string;
    turnId: string;
    role: MessageRole;
    parts: MessagePart[];
    status: MessageStatus;
    attempt?: number;
    model?: { providerId: string; modelId: string };
    /** A message made finished (a compaction's summary): what making it cost. */
    usage?: TokenUsage;
    costUsd?: number | null;
  },
  extraEvents: NewEvent[] = [],
  options: { sessionStatus?: SessionStatus } = {},
): Promise<{ message: MessageView; events: SessionEvent[] }> {
  // The message's position is the seq of its message.created event: the next seq of the session, read
  // under the session's lock in the statement that inserts it (one round trip, not two).
  const { rows } = await client.query<MessageRow>(
    `INSERT INTO messages (id, session_id, position, turn_id, role, parts, status, attempt, model, usage, cost_usd, completed_at)
     SELECT $1, $2, s.last_seq + 1 + $3::int, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $10::jsonb IS NULL THEN NULL ELSE now() END
       FROM sessions s WHERE s.id = $2 FOR UPDATE
     RETURNING *`,
    [
      input.id,
      input.sessionId,
      extraEvents.length,
      input.turnId,
      input.role,
      JSON.stringify(input.parts),
      input.status,
      input.attempt ?? 1,
      input.model ? JSON.stringify(input.model) : null,
      input.usage ? JSON.stringify(input.usage) : null,
      input.costUsd ?? null,
    ],
  );
  const message = toMessageView(rows[0]!);
  const events = await appendEvents(client, input.sessionId, [...extraEvents, { type: 'message.created', data: { message } }], {
    ...(options.sessionStatus ? { status: options.sessionStatus } : {}),
  });
  return { message, events };
}

/**
 * A structured reply that was not valid: its `reply.invalid` event and, when the model gets another
 * attempt, the note that tells it what was wrong, as a user message of the same turn (what the model
 * reads next, and what a reader of the session sees it was told). Once, however often retried.
 */
export async function recordInvalidReply(
  db: Db,
  input: {
    sessionId: string;
    turnId: string;
    invalidMessageId: string;
    attempt: number;
    errors: string[];
    feedback?: { messageId: string; text: string };
  },
): Promise<void> {
  await inTransaction(db, async (client) => {
    const event: NewEvent = {
      type: 'reply.invalid',
      data: { messageId: input.invalidMessageId, attempt: input.attempt, errors: input.errors },
    };
    if (await lockedSessionHasEvent(client, input.sessionId, ['reply.invalid'], { messageId: input.invalidMessageId })) return;
    if (!input.feedback) {
      await appendEvents(client, input.sessionId, [event]);
      return;
    }
    const parts: MessagePart[] = [{ type: 'text', text: input.feedback.text }];
    const feedback = { id: input.feedback.messageId, sessionId: input.sessionId, turnId: input.turnId, role: 'user' as const, parts };
    await insertMessage(client, { ...feedback, status: 'complete' }, [event]);
  });
}

/**
 * The turn answering a user message: the last one started for it (a regenerated turn names the user
 * message in its turn.started), or the message's own id when none has started yet.
 */
async function turnOfUserMessage(client: DbClient, sessionId: string, userMessageId: string): Promise<JoinedTurn> {
  const { rows } = await client.query<{ turn_id: string }>(
    `SELECT data->>'turnId' AS turn_id FROM events
      WHERE session_id = $1 AND type = 'turn.started' AND coalesce(data->>'userMessageId', data->>'turnId') = $2
      ORDER BY seq DESC LIMIT 1`,
    [sessionId, userMessageId],
  );
  return { turnId: rows[0]?.turn_id ?? userMessageId, userMessageId };
}

/**
 * Records a user message once (a retried call finds it and returns it). `joinTurn`: the user message of
 * a running turn this one steers (ifBusy=steer): it belongs to that turn, whose next step reads it.
 * With `joinTurnId` (that turn's id), a turn that has already written its end is not joined: its last
 * step can no longer read the message, which is then a turn of its own (`joined: false`).
 */
export async function recordUserMessage(
  db: Db,
  input: { sessionId: string; messageId: string; parts: MessagePart[]; joinTurn?: string; joinTurnId?: string },
): Promise<{ message: MessageView; seq: number; turnStarted: boolean; joined: boolean; joinedTurn?: JoinedTurn }> {
  return inTransaction(db, async (client) => {
    const existing = await client.query<MessageRow>('SELECT * FROM messages WHERE id = $1', [input.messageId]);
    if (existing.rows[0]) {
      // A send seen again (a client retry reaching a later run of the session workflow): its turn
      // ran already if it started or ended (a turn aborted before its first step never started).
      const started = await sessionHasEvent(client, input.sessionId, ['turn.started', ...TERMINAL_TURN_EVENTS], {
        turnId: input.messageId,
      });
      const row = existing.rows[0];
      // A steering message belongs to the turn it joined: seen again, it joins no other turn and runs
      // no turn of its own (unless the turn it joined ended without reading it, and it ran as one).
      const joinedTurn = row.turn_id && row.turn_id !== row.id ? await turnOfUserMessage(client, input.sessionId, row.turn_id) : undefined;
      return {
        message: toMessageView(row),
        seq: row.position,
        turnStarted: started,
        joined: input.joinTurn ? row.turn_id === input.joinTurn : row.turn_id !== row.id,
        ...(joinedTurn ? { joinedTurn } : {}),
      };
    }
    // Under the session's lock, as the step that would end the turn checks for messages it did not read.
    const joinTurn =
      input.joinTurn &&
      !(input.joinTurnId && (await lockedSessionHasEvent(client, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.joinTurnId })))
        ? input.joinTurn
        : undefined;
    const { message, events } = await insertMessage(client, {
      id: input.messageId,
      sessionId: input.sessionId,
      turnId: joinTurn ?? input.messageId,
      role: 'user',
      parts: input.parts,
      status: 'complete',
    });
    // The message's position: the seq of its message.created, the last event appended.
    const seq = events.at(-1)!.seq;
    // A send the session workflow took itself (a trigger's, or one an API of the release before handed it)
    // has its inbox row too, marked taken, as a send the API took has (store/session-inbox.ts): PostgreSQL
    // then knows a turn waits here, so the session is not idle and a revert or a regeneration, which the
    // API takes with no word to the workflow, is refused until that turn ends (the row leaves with its end).
    if (!joinTurn) {
      await client.query(
        `WITH row AS (
           INSERT INTO session_inbox (message_id, session_id, user_id, seq, turn_id, if_busy, taken)
           SELECT $1, s.id, s.user_id, $3, $1, 'queue', true FROM sessions s WHERE s.id = $2
           ON CONFLICT (message_id) DO NOTHING
         )
         UPDATE sessions SET status = 'running' WHERE id = $2 AND status = 'idle'`,
        [input.messageId, input.sessionId, seq],
      );
    }
    return { message, seq, turnStarted: false, joined: joinTurn !== undefined };
  });
}

/**
 * Claims an assistant message for a step attempt: creates it on first use; on a later attempt
 * resets its parts, takes ownership and announces `step.retry` so readers drop its deltas.
 * `startedTurn`: this call wrote the turn's turn.started.
 */
export async function claimAssistantMessage(
  db: Db,
  input: {
    sessionId: string;
    turnId: string;
    messageId: string;
    attempt: number;
    model: { providerId: string; modelId: string };
    /** The turn's first step: `turn.started` (this data) goes first, once per turn, and the session is running. */
    startsTurn?: { turnId: string; userMessageId?: string };
  },
): Promise<MessageView & { startedTurn?: true }> {
  return inTransaction(db, async (client) => {
    const existing = await client.query<MessageRow>('SELECT * FROM messages WHERE id = $1 FOR UPDATE', [input.messageId]);
    const row = existing.rows[0];
    if (row && row.status !== 'streaming') return toMessageView(row);
    const retry: NewEvent[] =
      input.attempt > 1 ? [{ type: 'step.retry', data: { messageId: input.messageId, attempt: input.attempt } }] : [];
    if (row) {
      if (row.attempt > input.attempt) throw new StaleAttemptError(`attempt ${input.attempt} is older than ${row.attempt}`);
      const updated = await client.query<MessageRow>(
        `UPDATE messages SET attempt = $2, parts = '[]', model = $3 WHERE id = $1 RETURNING *`,
        [input.messageId, input.attempt, JSON.stringify(input.model)],
      );
      await appendEvents(client, input.sessionId, retry);
      return toMessageView(updated.rows[0]!);
    }
    const starts = input.startsTurn && (await turnToStart(client, input.sessionId, input.startsTurn));
    const { message } = await insertMessage(
      client,
      {
        id: input.messageId,
        sessionId: input.sessionId,
        turnId: input.turnId,
        role: 'assistant',
        parts: [],
        status: 'streaming',
        attempt: input.attempt,
        model: input.model,
      },
      [...(starts ? [{ type: 'turn.started' as const, data: starts }] : []), ...retry],
      starts ? { sessionStatus: 'running' } : {},
    );
    return starts ? { ...message, startedTurn: true } : message;
  });
}

/**
 * Whether the first message of a turn also starts it: once per turn, even if that message is made again
 * (a run reset by an operator); and never once the turn has ended (an attempt that stalled before its
 * claim while the turn was aborted is refused, rather than reopen the turn).
 */
async function turnToStart(
  client: DbClient,
  sessionId: string,
  start: { turnId: string; userMessageId?: string },
): Promise<typeof start | undefined> {
  if (!(await lockedSessionHasEvent(client, sessionId, ['turn.started', ...TERMINAL_TURN_EVENTS], { turnId: start.turnId }))) return start;
  if (await sessionHasEvent(client, sessionId, TERMINAL_TURN_EVENTS, { turnId: start.turnId })) {
    throw new StaleAttemptError(`turn ${start.turnId} has ended`);
  }
  return undefined;
}

/** The locked row of a message, if step attempt `attempt` still writes it; StaleAttemptError otherwise. */
function ownedBy(row: MessageRow | undefined, messageId: string, attempt: number): MessageRow {
  if (!row || row.attempt !== attempt || row.status !== 'streaming') {
    throw new StaleAttemptError(`message ${messageId} is no longer written by attempt ${attempt}`);
  }
  return row;
}

/**
 * A step that may end its turn: when it finishes with no tool call, and every user message of its turn
 * (steering included) was in what it read, `turn.completed` goes with its message.completed.
 */
export interface TurnCompletion {
  /** The turn's id, as its events name it. */
  turnId: string;
  /** The turn its messages belong to (the user message's id; a regenerated turn's differs from turnId). */
  messagesTurnId: string;
  /** The user messages of the turn the step read. */
  readUserMessageIds: readonly string[];
  /** The turn's totals before this step; the message's own (as stored) are added. */
  priorUsage: TokenUsage;
  priorCostUsd: number | null;
}

export interface FinishedMessage {
  message: MessageView;
  /** The turn was completed with this message (now, or by the attempt that finished it before). */
  turnCompleted: boolean;
  /** This write stored the message; false when another attempt had finished it (this one's cost is stored nowhere). */
  stored: boolean;
  /** Seconds since turn.started when this write completed the turn (for the duration metric). */
  turnAgeSeconds?: number;
  /**
   * When this write completed the turn: whether the session's user then had an active webhook
   * subscription to session.completed (without one, publishing the turn's end records no delivery).
   */
  completionSubscribed?: boolean;
  /** A2A push notifications of the turn's end this write recorded (store/a2a-push.ts), to start. */
  pushed?: RecordedPush[];
}

/**
 * Stores the step's final message (idempotently: a message already finished is returned as is),
 * adds its usage to the session's totals, and appends message.completed plus any extra events, and
 * with `completesTurn` the turn's end when the turn is done (see TurnCompletion).
 */
export async function finishAssistantMessage(
  db: Db,
  input: {
    sessionId: string;
    messageId: string;
    attempt: number;
    parts: MessagePart[];
    status: 'complete' | 'aborted';
    usage: TokenUsage;
    costUsd: number | null;
    events?: (message: MessageView) => NewEvent[];
    completesTurn?: TurnCompletion;
    /** Budget holds of the call whose cost this message now carries (store/budgets.ts). */
    releasesHolds?: readonly string[];
  },
): Promise<FinishedMessage> {
  return inTransaction(db, async (client) => {
    const current = await client.query<MessageRow>('SELECT * FROM messages WHERE id = $1 FOR UPDATE', [input.messageId]);
    if (current.rows[0] && current.rows[0].status !== 'streaming') {
      const turnCompleted = input.completesTurn ? await hasTurnCompleted(client, input.sessionId, input.completesTurn.turnId) : false;
      return { message: toMessageView(current.rows[0]), turnCompleted, stored: false };
    }
    ownedBy(current.rows[0], input.messageId, input.attempt);
    // This attempt's cost is now on the message: its holds go with the write that stores it.
    if (input.releasesHolds) await releaseBudgetHolds(client, input.releasesHolds);
    // The message and its session's running totals, in one statement.
    const { rows } = await client.query<MessageRow>(
      `WITH totals AS (${sessionTotalsUpdate(6)})
       UPDATE messages SET parts = $2, status = $3, usage = $4, cost_usd = $5, completed_at = now() WHERE id = $1 RETURNING *`,
      [
        input.messageId,
        JSON.stringify(input.parts),
        input.status,
        JSON.stringify(input.usage),
        input.costUsd,
        ...sessionTotalsParams(input.sessionId, input.usage, input.costUsd),
      ],
    );
    const message = toMessageView(rows[0]!);
    const completion = input.completesTurn && (await turnMayComplete(client, input.sessionId, input.completesTurn));
    const events: NewEvent[] = [{ type: 'message.completed', data: { message } }, ...(input.events?.(message) ?? [])];
    if (!completion) {
      await appendEvents(client, input.sessionId, events);
      return { message, turnCompleted: false, stored: true };
    }
    // The totals add what was stored (cost rounded as the column keeps it), as the workflow adds the
    // steps' results and the session's totals add the messages.
    const { turnId, priorUsage, priorCostUsd, ageSeconds, subscribed, pushConfigs } = completion;
    const { usage, costUsd } = addToTotals({ usage: priorUsage, costUsd: priorCostUsd }, message.usage, message.costUsd);
    await appendEvents(client, input.sessionId, [...events, { type: 'turn.completed', data: { turnId, usage, costUsd } }], {
      status: 'idle',
    });
    // Read in the same statement as the end's other facts: a turn with no A2A push config pays nothing more.
    const pushed = pushConfigs
      ? await insertPushDeliveries(client, { sessionId: input.sessionId, taskId: turnId, turnId, state: 'TASK_STATE_COMPLETED' })
      : [];
    return {
      message,
      turnCompleted: true,
      stored: true,
      completionSubscribed: subscribed,
      ...(ageSeconds !== null ? { turnAgeSeconds: ageSeconds } : {}),
      ...(pushed.length > 0 ? { pushed } : {}),
    };
  });
}

/** The UPDATE that adds a call's usage and cost to its session's totals, its parameters numbered from `first`. */
function sessionTotalsUpdate(first: number): string {
  const [id, input, output, cost, cacheRead, cacheWrite] = Array.from({ length: 6 }, (_, index) => `$${first + index}`);
  return `UPDATE sessions SET input_tokens = input_tokens + ${input}, output_tokens = output_tokens + ${output},
            cost_usd = cost_usd + ${cost}, cache_read_tokens = cache_read_tokens + ${cacheRead},
            cache_write_tokens = cache_write_tokens + ${cacheWrite}
      WHERE id = ${id}`;
}

function sessionTotalsParams(sessionId: string, usage: TokenUsage, costUsd: number | null): unknown[] {
  return [sessionId, usage.inputTokens, usage.outputTokens, costUsd ?? 0, usage.cacheReadTokens ?? 0, usage.cacheWriteTokens ?? 0];
}

/** Adds a model call's usage and cost to its session's running totals (GET /session, GET /sessions). */
export async function addToSessionTotals(client: DbClient, sessionId: string, usage: TokenUsage, costUsd: number | null): Promise<void> {
  await client.query(sessionTotalsUpdate(1), sessionTotalsParams(sessionId, usage, costUsd));
}

/**
 * Whether a turn may end now, under the session's lock (so a steering message is either seen here or
 * recorded after the end): it has no terminal event yet, and no user message of it went unread. The
 * same statement reads what the end's metrics and webhook need: the turn's age, whether its user
 * has a subscription to session.completed, and whether an A2A client left a push config for it.
 */
async function turnMayComplete(
  client: DbClient,
  sessionId: string,
  turn: TurnCompletion,
): Promise<(TurnCompletion & { ageSeconds: number | null; subscribed: boolean; pushConfigs: boolean }) | undefined> {
  if (await lockedSessionHasEvent(client, sessionId, TERMINAL_TURN_EVENTS, { turnId: turn.turnId }, true)) return undefined;
  const { rows } = await client.query<{ unread: boolean; age: number | null; subscribed: boolean; push_configs: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM messages WHERE session_id = $1 AND turn_id = $2 AND role = 'user' AND NOT reverted
                      AND NOT (id = ANY($3))) AS unread,
            (${turnAgeSql('$1', '$4')}) AS age,
            ${subscribedSql('(SELECT user_id FROM sessions WHERE id = $1)', "'session.completed'")} AS subscribed,
            EXISTS (SELECT 1 FROM a2a_push_configs WHERE session_id = $1 AND task_id = $4) AS push_configs`,
    [sessionId, turn.messagesTurnId, turn.readUserMessageIds, turn.turnId],
  );
  const { unread, age, subscribed, push_configs: pushConfigs } = rows[0]!;
  return unread ? undefined : { ...turn, ageSeconds: age, subscribed, pushConfigs };
}

/** Whether the turn has its turn.completed (a step finished again reports the end it wrote before). */
export function hasTurnCompleted(db: Db | DbClient, sessionId: string, turnId: string): Promise<boolean> {
  return sessionHasEvent(db, sessionId, ['turn.completed'], { turnId });
}

/** The `tool.result` event of one result, as the turn records it and as a client's answer announces it. */
export function toolResultEvent(messageId: string, result: Extract<MessagePart, { type: 'tool-result' }>): NewEvent {
  return {
    type: 'tool.result',
    data: {
      messageId,
      toolCallId: result.toolCallId,
      toolName: result.toolName,
      output: result.output,
      ...(result.isError ? { isError: true } : {}),
    },
  };
}

/** Records tool results as one tool message (once), with a `tool.result` event per result. */
export async function recordToolResults(
  db: Db,
  input: { sessionId: string; turnId: string; messageId: string; results: Extract<MessagePart, { type: 'tool-result' }>[] },
): Promise<void> {
  await inTransaction(db, async (client) => {
    const existing = await client.query('SELECT 1 FROM messages WHERE id = $1', [input.messageId]);
    if (existing.rowCount) return;
    // A client's results were announced one by one as they came (tool.result under this message id).
    await client.query('SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE', [input.sessionId]);
    const { rows: announced } = await client.query<{ tool_call_id: string }>(
      `SELECT data->>'toolCallId' AS tool_call_id FROM events WHERE session_id = $1 AND type = 'tool.result' AND data->>'messageId' = $2`,
      [input.sessionId, input.messageId],
    );
    const done = new Set(announced.map((row) => row.tool_call_id));
    const resultEvents = input.results
      .filter((result) => !done.has(result.toolCallId))
      .map((result) => toolResultEvent(input.messageId, result));
    await insertMessage(client, {
      id: input.messageId,
      sessionId: input.sessionId,
      turnId: input.turnId,
      role: 'tool',
      parts: input.results,
      status: 'complete',
    });
    await appendEvents(client, input.sessionId, resultEvents);
  });
}

// Conversation order is by turn, then within the turn: a user message queued while an earlier turn
// was still answering comes after that turn's replies, although it was recorded before them.
const CONVERSATION_ORDER = `
  SELECT m.* FROM messages m JOIN messages t ON t.id = m.turn_id AND t.session_id = m.session_id
   WHERE m.session_id = $1 AND NOT m.reverted`;

/**
 * What the model sees in a turn: the messages of every turn up to and including `turnId`, not
 * reverted, finished (an aborted reply keeps its partial text), in conversation order.
 */
export async function conversation(db: Db | DbClient, sessionId: string, turnId: string): Promise<MessageView[]> {
  const { rows } = await db.query<MessageRow>(
    `${CONVERSATION_ORDER} AND m.status IN ('complete', 'aborted')
       AND t.position <= (SELECT position FROM messages WHERE id = $2)
     ORDER BY t.position, m.position`,
    [sessionId, turnId],
  );
  return rows.map(toMessageView);
}

/**
 * The text of the last user message the model saw up to turn `turnId` (what a tool call's approval
 * question quotes), if it had any text.
 */
export async function lastUserText(db: Db | DbClient, sessionId: string, turnId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ parts: MessagePart[] }>(
    `SELECT m.parts FROM messages m JOIN messages t ON t.id = m.turn_id AND t.session_id = m.session_id
      WHERE m.session_id = $1 AND NOT m.reverted AND m.role = 'user'
        AND t.position <= (SELECT position FROM messages WHERE id = $2)
     ORDER BY t.position DESC, m.position DESC LIMIT 1`,
    [sessionId, turnId],
  );
  const text = (rows[0]?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return text || undefined;
}

/** The turn (its user message's id) of the conversation's last finished message, if any. */
export async function lastTurnId(db: Db | DbClient, sessionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ turn_id: string }>(
    `SELECT m.turn_id FROM messages m JOIN messages t ON t.id = m.turn_id AND t.session_id = m.session_id
      WHERE m.session_id = $1 AND NOT m.reverted AND m.status IN ('complete', 'aborted')
      ORDER BY t.position DESC, m.position DESC LIMIT 1`,
    [sessionId],
  );
  return rows[0]?.turn_id;
}

export async function listMessages(db: Db | DbClient, sessionId: string): Promise<MessageView[]> {
  const { rows } = await db.query<MessageRow>(`${CONVERSATION_ORDER} ORDER BY t.position, m.position`, [sessionId]);
  return rows.map(toMessageView);
}

/** The messages of a turn still in the conversation (a regenerated turn's earlier replies are not). */
export async function turnMessages(db: Db | DbClient, sessionId: string, turnId: string): Promise<MessageView[]> {
  const sql = 'SELECT * FROM messages WHERE session_id = $1 AND turn_id = $2 AND NOT reverted ORDER BY position';
  const { rows } = await db.query<MessageRow>(sql, [sessionId, turnId]);
  return rows.map(toMessageView);
}

/** Whether the session has recorded this message (a retried send finds its first attempt's). */
export async function hasMessage(db: Db | DbClient, sessionId: string, messageId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM messages WHERE session_id = $1 AND id = $2', [sessionId, messageId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The text a streaming message had reached: its deltas since its last `step.retry` (or since it was
 * created), exactly what a reader following the stream shows.
 */
export async function streamedText(db: Db, sessionId: string, messageId: string): Promise<string> {
  const { rows } = await db.query<{ delta: string }>(
    `SELECT data->>'delta' AS delta FROM events
      WHERE session_id = $1 AND type = 'message.part.delta' AND data->>'messageId' = $2
        AND seq > COALESCE((SELECT max(seq) FROM events WHERE session_id = $1 AND type = 'step.retry' AND data->>'messageId' = $2), 0)
      ORDER BY seq`,
    [sessionId, messageId],
  );
  return rows.map((row) => row.delta).join('');
}

/** The messages of a turn still streaming: what an ended turn must close. */
export async function streamingMessageIds(db: Db | DbClient, sessionId: string, turnId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM messages WHERE session_id = $1 AND turn_id = $2 AND status = 'streaming'`,
    [sessionId, turnId],
  );
  return rows.map((row) => row.id);
}

/** Closes a message still streaming with the text it had reached; undefined if it was no longer streaming. */
export async function endStreamingMessage(
  client: DbClient,
  messageId: string,
  status: 'failed' | 'aborted',
  parts: MessagePart[],
): Promise<MessageView | undefined> {
  const { rows } = await client.query<MessageRow>(
    `UPDATE messages SET status = $2, parts = $3, completed_at = now() WHERE id = $1 AND status = 'streaming' RETURNING *`,
    [messageId, status, JSON.stringify(parts)],
  );
  return rows[0] && toMessageView(rows[0]);
}
