// Approvals a team answers: their seats (who may answer, with where they are asked) and their votes.
// A vote is cast under the approval's row lock, so it sees every vote before it and exactly one vote
// decides; the deciding vote stores the answer as a single answer is stored (pending its hand-over to
// the workflow, the session's event with it), so nothing downstream tells the two apart.
import type { Db, DbClient } from './db.ts';
import { inTransaction } from './db.ts';
import { appendEvents } from './events.ts';
import { announce, findDispatches, markAnswered, toApproval, type Approval, type ApprovalRow } from './approvals.ts';
import { reachSession } from './approval-endings.ts';
import { resolveApprovers, type ApproverSeat } from './approvers.ts';
import { decisionOf, tallyOf, teamRule, type TeamRequest } from '../lib/workflow-safe/approval-quorum.ts';
import { GROUP_PREFIX, ME, TEAM_LIMITS } from '../contract/approvals.ts';
import type { AnswerVia } from '../contract/approvals.ts';

export interface Vote {
  choice: string;
  note: string | null;
  via: AnswerVia;
  votedAt: Date;
}

export interface Seat extends ApproverSeat {
  /** Names the seat in its signed links: never reused within an approval. */
  position: number;
  addedBy: 'request' | 'escalation' | 'delegation';
  addedAt: Date;
  /** The approver this seat handed its vote to: it votes no more. */
  delegatedTo: string | null;
  vote: Vote | null;
}

/**
 * Makes the seats of a new approval from the user's directory as it is now, and its rule. A name the
 * directory lost since the request was checked is no seat; a quorum asked as a number stays (teamRule).
 */
export async function insertTeam(client: DbClient, approval: Approval, team: TeamRequest): Promise<Approval> {
  const { seats } = await resolveApprovers(client, approval.userId, team.approvers);
  for (const [position, seat] of seats.entries()) {
    await client.query(
      `INSERT INTO approval_seats (approval_id, position, name, email, slack_user_id, telegram_chat_id, webhook_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [approval.id, position, seat.name, seat.email, seat.slackUserId, seat.telegramChatId, seat.webhookUrl],
    );
  }
  for (const { position, provider } of seatAddresses(seats)) {
    await client.query('INSERT INTO approval_seat_dispatches (approval_id, position, provider) VALUES ($1, $2, $3)', [
      approval.id,
      position,
      provider,
    ]);
  }
  const rule = teamRule(team, seats.length, approval.options);
  const { rows } = await client.query<ApprovalRow>(
    'UPDATE approvals SET quorum = $2, deny_wins = $3, refusing_option = $4 WHERE id = $1 RETURNING *',
    [approval.id, rule.quorum, rule.denyWins, rule.refusing],
  );
  return toApproval(rows[0]!);
}

/** Where an approver is asked: one dispatch per address their seat has, in this order. */
export type SeatProvider = 'email' | 'slack' | 'telegram' | 'webhook';

export function seatAddresses(seats: readonly ApproverSeat[]): Array<{ position: number; provider: SeatProvider }> {
  return seats.flatMap((seat, position) =>
    (
      [
        ['email', seat.email],
        ['slack', seat.slackUserId],
        ['telegram', seat.telegramChatId],
        ['webhook', seat.webhookUrl],
      ] as const
    ).flatMap(([provider, address]) => (address !== null ? [{ position, provider }] : [])),
  );
}

export interface SeatDispatch {
  position: number;
  provider: SeatProvider;
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  attempts: number;
  error: string | null;
  updatedAt: Date;
}

/** An approval's dispatches to its approvers, by seat then provider. */
export async function seatDispatchesOf(db: Db | DbClient, approvalId: string): Promise<SeatDispatch[]> {
  const { rows } = await db.query<{
    position: number;
    provider: SeatProvider;
    status: SeatDispatch['status'];
    attempts: number;
    error: string | null;
    updated_at: Date;
  }>(
    `SELECT position, provider, status, attempts, error, updated_at
       FROM approval_seat_dispatches WHERE approval_id = $1 ORDER BY position, provider`,
    [approvalId],
  );
  return rows.map((row) => ({
    position: row.position,
    provider: row.provider,
    status: row.status,
    attempts: row.attempts,
    error: row.error,
    updatedAt: row.updated_at,
  }));
}

/** One attempt at one approver's address: `sent`, or its error (`failed` once final). */
export async function recordSeatDispatch(
  db: Db,
  input: {
    approvalId: string;
    position: number;
    provider: SeatProvider;
    status: SeatDispatch['status'];
    error?: string | null;
    /** How the provider names the sent message (a chat's thread): a reply there votes as this seat. Every one is kept. */
    externalRef?: string | null;
  },
): Promise<void> {
  await db.query(
    `UPDATE approval_seat_dispatches
        SET status = CASE WHEN $4 = 'sent' THEN 'sent' WHEN status IN ('sent', 'skipped', 'failed') THEN status ELSE $4 END,
            attempts = attempts + 1, error = $5, updated_at = now()
      WHERE approval_id = $1 AND position = $2 AND provider = $3`,
    [input.approvalId, input.position, input.provider, input.status, input.error ?? null],
  );
  if (input.externalRef)
    await db.query(
      `INSERT INTO approval_seat_messages (approval_id, position, provider, external_ref) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [input.approvalId, input.position, input.provider, input.externalRef],
    );
}

/** The last message sent to each approver in a chat, per address: where an outcome is noted. */
export async function lastSeatMessages(
  db: Db,
  approvalId: string,
): Promise<Array<{ position: number; provider: 'slack' | 'telegram'; externalRef: string }>> {
  const { rows } = await db.query<{ position: number; provider: 'slack' | 'telegram'; external_ref: string }>(
    `SELECT DISTINCT ON (position, provider) position, provider, external_ref FROM approval_seat_messages
      WHERE approval_id = $1 AND provider IN ('slack', 'telegram') ORDER BY position, provider, sent_at DESC`,
    [approvalId],
  );
  return rows.map((row) => ({ position: row.position, provider: row.provider, externalRef: row.external_ref }));
}

/** A message sent to an approver that a chat reply names: its approval, seat, and the agent whose channel sent it. */
export interface SeatDispatchMatch {
  approvalId: string;
  seat: number;
  userId: string;
  agentId: string | null;
  revision: number | null;
}

/** The approver messages a provider's reference names (a thread of a direct message to them). */
export async function findSeatDispatchesByRef(db: Db, provider: SeatProvider, externalRef: string): Promise<SeatDispatchMatch[]> {
  const found = await findDispatches(
    db,
    'd.provider = $1 AND d.external_ref = $2',
    [provider, externalRef],
    'a.created_at DESC',
    'approval_seat_messages',
  );
  return found.map(({ position, ...match }) => ({ ...match, seat: position }));
}

/** Once decided (or given up on): approvers not reached yet are `skipped` (or the one given up on `failed`), not pending. */
export async function closeSeatDispatches(
  db: Db,
  input: { approvalId: string; status: 'skipped' | 'failed'; error: string; position?: number; provider?: SeatProvider },
): Promise<void> {
  await db.query(
    `UPDATE approval_seat_dispatches SET status = $2, error = COALESCE(error, $3), updated_at = now()
      WHERE approval_id = $1 AND status = 'pending' AND ($4::int IS NULL OR position = $4) AND ($5::text IS NULL OR provider = $5)`,
    [input.approvalId, input.status, input.error, input.position ?? null, input.provider ?? null],
  );
}

interface SeatRow {
  position: number;
  name: string;
  email: string | null;
  slack_user_id: string | null;
  telegram_chat_id: string | null;
  webhook_url: string | null;
  added_by: Seat['addedBy'];
  delegated_to: string | null;
  added_at: Date;
  choice: string | null;
  note: string | null;
  via: AnswerVia | null;
  voted_at: Date | null;
}

function toSeat(row: SeatRow): Seat {
  return {
    position: row.position,
    name: row.name,
    email: row.email,
    slackUserId: row.slack_user_id,
    telegramChatId: row.telegram_chat_id,
    webhookUrl: row.webhook_url,
    addedBy: row.added_by,
    delegatedTo: row.delegated_to,
    addedAt: row.added_at,
    vote: row.choice !== null ? { choice: row.choice, note: row.note, via: row.via!, votedAt: row.voted_at! } : null,
  };
}

/** An approval's seats in order, each with its vote if it voted. */
export async function seatsOf(db: Db | DbClient, approvalId: string): Promise<Seat[]> {
  const { rows } = await db.query<SeatRow>(
    `SELECT s.position, s.name, s.email, s.slack_user_id, s.telegram_chat_id, s.webhook_url, s.added_by, s.added_at, s.delegated_to,
            v.choice, v.note, v.via, v.voted_at
       FROM approval_seats s LEFT JOIN approval_votes v ON v.approval_id = s.approval_id AND v.position = s.position
      WHERE s.approval_id = $1 ORDER BY s.position`,
    [approvalId],
  );
  return rows.map(toSeat);
}

export type CastVote =
  /** Answered or expired already (or past its expiry, its timer not yet fired). */
  | { kind: 'closed'; approval: Approval }
  /** Nobody with this seat may answer: not counted, nothing written. */
  | { kind: 'stranger'; approval: Approval; seats: string[] }
  /** The seat voted before (the first vote stands), or handed its vote to another approver. */
  | { kind: 'voted-before'; approval: Approval; seat: Seat }
  | { kind: 'delegated'; approval: Approval; seat: Seat }
  /** Counted; `decided`: this vote decided the approval, which is now answered with the rule's outcome. */
  | { kind: 'counted'; approval: Approval; seat: Seat; tally: Record<string, number>; decided: boolean };

/**
 * One approver's vote (`choice` one of the options, matched by the caller). Under the approval's row
 * lock: closed, a stranger and a second vote write nothing; a counted vote is stored with the session's
 * event (`approval.voted`, or `approval.answered` when it decides, as a single answer is stored).
 */
export async function castVote(
  db: Db,
  input: { approvalId: string; seat: { position: number } | { name: string }; choice: string; note: string | null; via: AnswerVia },
): Promise<CastVote> {
  return inTransaction(db, async (client) => {
    const { approval, open } = await lockApproval(client, input.approvalId);
    if (!open) return { kind: 'closed', approval };
    const seats = await seatsOf(client, approval.id);
    const seat = seats.find((candidate) =>
      'position' in input.seat ? candidate.position === input.seat.position : candidate.name === input.seat.name,
    );
    if (!seat) return { kind: 'stranger', approval, seats: seats.map((candidate) => candidate.name) };
    if (seat.vote) return { kind: 'voted-before', approval, seat };
    if (seat.delegatedTo !== null) return { kind: 'delegated', approval, seat };
    const { rows: cast } = await client.query<{ voted_at: Date }>(
      'INSERT INTO approval_votes (approval_id, position, choice, note, via) VALUES ($1, $2, $3, $4, $5) RETURNING voted_at',
      [approval.id, seat.position, input.choice, input.note, input.via],
    );
    const voted: Seat = { ...seat, vote: { choice: input.choice, note: input.note, via: input.via, votedAt: cast[0]!.voted_at } };
    const choices = seats.flatMap((candidate) => (candidate === seat ? [input.choice] : candidate.vote ? [candidate.vote.choice] : []));
    const tally = tallyOf(approval.options, choices);
    const decision = decisionOf(approval.team!, tally);
    if (decision === undefined) {
      await announce(client, approval.id);
      if (approval.sessionId !== null) {
        await appendEvents(client, approval.sessionId, [
          {
            type: 'approval.voted',
            data: {
              approvalId: approval.id,
              approver: seat.name,
              choice: input.choice,
              note: input.note,
              via: input.via,
              votedAt: voted.vote!.votedAt.toISOString(),
              tally,
              quorum: approval.team!.quorum,
            },
          },
        ]);
      }
      return { kind: 'counted', approval, seat: voted, tally, decided: false };
    }
    // The vote that decides chose the decision: only its option's count moved.
    await markAnswered(client, { approvalId: approval.id, choice: decision, note: input.note, via: input.via }, true);
    const { rows: decided } = await client.query<ApprovalRow>(
      'UPDATE approvals SET decided_by = $2, tally = $3 WHERE id = $1 RETURNING *',
      [approval.id, seat.name, JSON.stringify(tally)],
    );
    const answered = toApproval(decided[0]!);
    await reachSession(client, answered, input.via);
    return { kind: 'counted', approval: answered, seat: voted, tally, decided: true };
  });
}

/** The approval, locked for this transaction; `open`: unanswered and not past its expiry. */
async function lockApproval(client: DbClient, approvalId: string): Promise<{ approval: Approval; open: boolean }> {
  const { rows } = await client.query<ApprovalRow & { past_expiry: boolean }>(
    'SELECT *, expires_at <= now() AS past_expiry FROM approvals WHERE id = $1 FOR UPDATE',
    [approvalId],
  );
  const locked = rows[0]!;
  const approval = toApproval(locked);
  return { approval, open: approval.status === 'unanswered' && !locked.past_expiry };
}

/** Seats added to an open approval, with their dispatches (positions after every seat so far). */
async function addSeats(
  client: DbClient,
  approval: Approval,
  seats: readonly ApproverSeat[],
  addedBy: 'escalation' | 'delegation',
  escalationStep: number | null = null,
): Promise<{ added: Seat[]; dispatches: Array<{ position: number; provider: SeatProvider }> }> {
  const present = await seatsOf(client, approval.id);
  const room = TEAM_LIMITS.seats - present.length;
  const fresh = seats.filter((seat) => !present.some((known) => known.name === seat.name)).slice(0, Math.max(0, room));
  const first = present.reduce((last, seat) => Math.max(last, seat.position), -1) + 1;
  const dispatches: Array<{ position: number; provider: SeatProvider }> = [];
  for (const [index, seat] of fresh.entries()) {
    const position = first + index;
    await client.query(
      `INSERT INTO approval_seats (approval_id, position, name, email, slack_user_id, telegram_chat_id, webhook_url, added_by, escalation_step)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [approval.id, position, seat.name, seat.email, seat.slackUserId, seat.telegramChatId, seat.webhookUrl, addedBy, escalationStep],
    );
    for (const { provider } of seatAddresses([seat])) {
      await client.query('INSERT INTO approval_seat_dispatches (approval_id, position, provider) VALUES ($1, $2, $3)', [
        approval.id,
        position,
        provider,
      ]);
      dispatches.push({ position, provider });
    }
  }
  const added = (await seatsOf(client, approval.id)).filter((seat) => seat.position >= first);
  return { added, dispatches };
}

/** The user's own channels, to ask on when an escalation adds "me" to an approval they were not asked on. */
export interface OwnChannel {
  position: number;
  provider: string;
  answerVia: 'reply' | 'signed-url';
}

export interface Escalated {
  /** The approvers this step added. */
  added: string[];
  /** Their addresses, to ask. */
  dispatches: Array<{ position: number; provider: SeatProvider }>;
  /** Positions of the user's own channels to ask: the step added "me". Absent from results recorded before it. */
  channels?: number[];
}

/**
 * An escalation step: the approvers `to` names (from the directory as it is now) join an approval that
 * is still open, with an `approval.escalated` event in its session. When it adds "me" to an approval whose
 * question did not go to the user's own channels, those channels (`ownChannels`) are to ask too. Run again
 * (its result lost with a worker), a step adds nobody new and answers what it added the first time, so
 * those approvers are still asked. Nothing for an approval that has ended.
 */
export async function escalate(
  db: Db,
  input: { approvalId: string; step: number; to: readonly string[]; ownChannels?: readonly OwnChannel[] },
): Promise<Escalated> {
  return inTransaction(db, async (client) => {
    const { approval, open } = await lockApproval(client, input.approvalId);
    if (!open) return { added: [], dispatches: [], channels: [] };
    const { seats } = await resolveApprovers(client, approval.userId, input.to);
    const { added: now } = await addSeats(client, approval, seats, 'escalation', input.step);
    if (now.length > 0) {
      await announce(client, approval.id);
      if (approval.sessionId !== null)
        await appendEvents(client, approval.sessionId, [
          { type: 'approval.escalated', data: { approvalId: approval.id, step: input.step, approvers: now.map((seat) => seat.name) } },
        ]);
    }
    const { rows: ofStep } = await client.query<{ position: number; name: string }>(
      'SELECT position, name FROM approval_seats WHERE approval_id = $1 AND escalation_step = $2 ORDER BY position',
      [approval.id, input.step],
    );
    const positions = new Set(ofStep.map((seat) => seat.position));
    const dispatches = (await seatDispatchesOf(client, approval.id))
      .filter((dispatch) => positions.has(dispatch.position))
      .map(({ position, provider }) => ({ position, provider }));
    // "me" added by this step was not an approver before, so the question never went to the user's own channels.
    let channels: number[] = [];
    if (ofStep.some((seat) => seat.name === ME) && input.ownChannels) {
      for (const channel of input.ownChannels)
        await client.query(
          `INSERT INTO approval_dispatches (approval_id, position, provider, answer_via) VALUES ($1, $2, $3, $4)
           ON CONFLICT (approval_id, position) DO NOTHING`,
          [approval.id, channel.position, channel.provider, channel.answerVia],
        );
      channels = input.ownChannels.map((channel) => channel.position);
    }
    return { added: ofStep.map((seat) => seat.name), dispatches, channels };
  });
}

export type Delegation =
  | { kind: 'closed'; approval: Approval }
  | { kind: 'not-a-seat' | 'voted' | 'delegated' | 'taken' | 'unknown' | 'full'; approval: Approval }
  | { kind: 'delegated-now'; approval: Approval; to: Seat; dispatches: Array<{ position: number; provider: SeatProvider }> };

/**
 * An approver hands their vote to another approver of the user's directory, who is not one of this
 * approval's approvers yet: the new seat votes in their place (asked at their addresses), the old one
 * no more. Recorded on both seats, with an `approval.delegated` event.
 */
export async function delegateSeat(db: Db, input: { approvalId: string; from: string; to: string }): Promise<Delegation> {
  return inTransaction(db, async (client): Promise<Delegation> => {
    const { approval, open } = await lockApproval(client, input.approvalId);
    if (!open) return { kind: 'closed', approval };
    const seats = await seatsOf(client, approval.id);
    const from = seats.find((seat) => seat.name === input.from);
    if (!from) return { kind: 'not-a-seat', approval };
    if (from.vote) return { kind: 'voted', approval };
    if (from.delegatedTo !== null) return { kind: 'delegated', approval };
    if (seats.some((seat) => seat.name === input.to)) return { kind: 'taken', approval };
    // Before the directory is read: a full approval says nothing of whether the name is in it.
    if (seats.length >= TEAM_LIMITS.seats) return { kind: 'full', approval };
    const { seats: resolved } = await resolveApprovers(client, approval.userId, [input.to]);
    const person = resolved.find((seat) => seat.name === input.to && !input.to.startsWith(GROUP_PREFIX));
    if (!person || input.to === ME) return { kind: 'unknown', approval };
    const { added, dispatches } = await addSeats(client, approval, [person], 'delegation');
    if (added.length === 0) return { kind: 'full', approval };
    await client.query('UPDATE approval_seats SET delegated_to = $3 WHERE approval_id = $1 AND position = $2', [
      approval.id,
      from.position,
      input.to,
    ]);
    await announce(client, approval.id);
    if (approval.sessionId !== null)
      await appendEvents(client, approval.sessionId, [
        { type: 'approval.delegated', data: { approvalId: approval.id, from: input.from, to: input.to } },
      ]);
    return { kind: 'delegated-now', approval, to: added[0]!, dispatches };
  });
}
