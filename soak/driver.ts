// One session's user: sends a turn of a random kind in a random way, answers whatever the turn asks
// (a question, a client tool call) the moment its reader shows it, waits for the turn's end, and goes
// on until the load time is up. What it did is kept for the checks: each send's key and message id,
// every answer and its status, and how the turn ended (or that it did not).
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { SessionEvent } from '../contract/events.ts';
import { isTurnEnd } from '../contract/turn-events.ts';
import { readSse } from '../test/helpers/client/sse-parse.ts';
import type { SoakHttp } from './http.ts';
import type { SessionReader } from './reader.ts';
import { SEND_MODES, TURN_KINDS, userText, type SendMode, type TurnKind } from './turn-kinds.ts';

export interface Answered {
  id: string;
  /** The status of the answer that settled it (200 taken, 409 taken before), or the last one seen. */
  status: number;
  /** How many times it was sent (more than once when a connection broke or the service answered 502/503/504). */
  attempts: number;
  /** From the event that asked to the settling answer's response. */
  ms: number;
}

export interface SentTurn {
  sessionId: string;
  kind: TurnKind;
  mode: SendMode;
  idempotencyKey: string;
  text: string;
  messageId?: string;
  /** A send the service refused, or whose answer made no sense: status and body. */
  refused?: string;
  /** How the turn ended as its reader saw it; `stuck` when it did not within the turn's time. */
  end?: 'turn.completed' | 'turn.failed' | 'turn.aborted' | 'stuck';
  approvals: Answered[];
  toolResults: Answered[];
  /** Where the client is with it: for a soak that stops waiting, what it was still waiting on. */
  phase: 'sending' | 'following' | 'answering' | 'done';
  /** A streamed send's own events: seqs that did not increase. */
  streamOutOfOrder: number;
  /** A streamed send's stream, read on the side until it ends; `open` if it was still open after its turn's end. */
  streamRead?: Promise<void>;
  stream?: 'open' | 'ended' | 'cut';
  /** A `regenerate` turn: its reply regenerated once it completed, and how that new turn went. */
  regenerated?: Regenerated;
}

export interface Regenerated {
  /** The reply it took out of the conversation. */
  replyId: string;
  /** The new turn, as the answer named it (or, its answer lost, as the session's events did). */
  turnId?: string;
  status: number;
  attempts: number;
  refused?: string;
  end?: 'turn.completed' | 'turn.failed' | 'turn.aborted' | 'stuck';
}

/** A turn with no end this long after its last event is stuck (every wait in it is answered at once). */
export const TURN_QUIET_MS = 60_000;

/** An answer, sent again while the connection breaks or the service is unavailable (http.ts). */
async function settle(http: SoakHttp, path: string, body: unknown): Promise<{ status: number; attempts: number }> {
  // JSON back, also from an answer link (which answers a browser with a page).
  const { status, attempts } = await http.json(path, { body, headers: { accept: 'application/json' } });
  return { status, attempts };
}

/** The answer paths of an approval's approvers other than the user (none for a question anyone holding it answers). */
async function approversOf(http: SoakHttp, approvalId: string): Promise<string[]> {
  const { body } = await http.json<{ approvers?: Array<{ name: string; links?: { page: string } }> }>(`/approval/${approvalId}`);
  return (body?.approvers ?? []).flatMap((seat) => (seat.name !== 'me' && seat.links ? [new URL(seat.links.page).pathname] : []));
}

/** How long a streamed send's stream may stay open after its turn's end was seen elsewhere. */
const STREAM_END_WAIT_MS = 5_000;

/** Streamed sends cut before their first event, tried again with the same key; then it counts as refused. */
const STREAM_ATTEMPTS = 20;

async function send(http: SoakHttp, turn: SentTurn): Promise<void> {
  const body = { parts: [{ type: 'text', text: turn.text }] };
  const headers = { 'idempotency-key': turn.idempotencyKey };
  if (turn.mode !== 'streamed') {
    const path = `/session/${turn.sessionId}${turn.mode === 'async' ? '?async=1' : ''}`;
    const answer = await http.json<{ messageId?: string }>(path, { body, headers });
    const expected = turn.mode === 'async' ? 202 : 200;
    if (answer.status !== expected || !answer.body?.messageId) turn.refused = `${answer.status} ${JSON.stringify(answer.body)}`;
    else turn.messageId = answer.body.messageId;
    return;
  }
  // Streamed: the first event is the user message (its id is the turn's). The stream stays open while
  // the turn waits for an answer, so the rest is read on the side, to its end or until it breaks (its
  // session's reader has everything anyway).
  for (let attempt = 1; ; attempt++) {
    const response = await http.open(`/session/${turn.sessionId}`, { body, headers: { ...headers, accept: 'text/event-stream' } });
    if (response.status !== 200) {
      turn.refused = `${response.status} ${await response.text()}`;
      return;
    }
    const frames = readSse(response);
    let lastSeq = 0;
    const take = (event: SessionEvent) => {
      if (event.seq <= lastSeq) turn.streamOutOfOrder += 1;
      lastSeq = event.seq;
      if (!turn.messageId && event.type === 'message.created' && event.message.role === 'user') turn.messageId = event.message.id;
    };
    try {
      for (let next = await frames.next(); !next.done; next = await frames.next()) {
        take(JSON.parse(next.value.data) as SessionEvent);
        if (turn.messageId) break;
      }
    } catch {
      // Cut: tried again below, or followed by the reader.
    }
    if (turn.messageId) {
      turn.stream = 'open';
      turn.streamRead = (async () => {
        try {
          for await (const frame of frames) take(JSON.parse(frame.data) as SessionEvent);
          turn.stream = 'ended';
        } catch {
          // Cut: the reader follows the rest.
          turn.stream = 'cut';
        }
      })();
      return;
    }
    // Cut before the message was even announced: the same key again finds the same send.
    if (attempt >= STREAM_ATTEMPTS) {
      turn.refused = `the stream ended ${attempt} times before its first event`;
      return;
    }
  }
}

async function runTurn(http: SoakHttp, reader: SessionReader, turn: SentTurn): Promise<void> {
  const cursor = reader.received.length;
  await send(http, turn);
  turn.phase = 'following';
  if (!turn.messageId) return;
  turn.end = await follow(http, reader, turn, turn.messageId, cursor);
  if (turn.kind === 'regenerate' && turn.end === 'turn.completed') await regenerate(http, reader, turn, turn.messageId);
  turn.phase = 'done';
}

/**
 * Regenerates the turn's reply (taken in PostgreSQL as a send is) and follows the new turn to its end. An
 * answer lost with a killed API is sent again: a retry that finds the first taken (409 while its turn runs,
 * 404 once the reply is gone) learns the new turn's id from the session's events.
 */
async function regenerate(http: SoakHttp, reader: SessionReader, turn: SentTurn, userMessageId: string): Promise<void> {
  const replies = reader.received.flatMap(({ event }) =>
    event.type === 'message.created' && event.message.role === 'assistant' && event.message.turnId === userMessageId
      ? [event.message.id]
      : [],
  );
  const replyId = replies.at(-1);
  if (!replyId) return;
  const cursor = reader.received.length;
  const answer = await http.json<{ turnId?: string }>(`/session/${turn.sessionId}/regenerate?async=1`, {
    body: { assistantMessageId: replyId },
  });
  const regenerated: Regenerated = { replyId, status: answer.status, attempts: answer.attempts };
  turn.regenerated = regenerated;
  if (answer.status === 202 && answer.body?.turnId) regenerated.turnId = answer.body.turnId;
  else if ((answer.status === 409 || answer.status === 404) && answer.attempts > 1)
    regenerated.turnId = await startedTurn(reader, userMessageId, cursor);
  if (!regenerated.turnId) {
    regenerated.refused = `${answer.status} after ${answer.attempts} attempts: ${JSON.stringify(answer.body)}`;
    return;
  }
  regenerated.end = await follow(http, reader, turn, regenerated.turnId, cursor);
}

/** The id of the turn that started for `userMessageId` after `cursor`, other than its own (a regeneration's). */
async function startedTurn(reader: SessionReader, userMessageId: string, cursor: number): Promise<string | undefined> {
  for (let index = cursor; ; index++) {
    if (index >= reader.received.length && !(await reader.waitBeyond(index, TURN_QUIET_MS))) return undefined;
    const { event } = reader.received[index]!;
    if (event.type === 'turn.started' && event.userMessageId === userMessageId && event.turnId !== userMessageId) return event.turnId;
  }
}

/** Follows turn `turnId` from `cursor`, answering what it asks, to its end (or `stuck`). */
async function follow(
  http: SoakHttp,
  reader: SessionReader,
  turn: SentTurn,
  turnId: string,
  from: number,
): Promise<NonNullable<SentTurn['end']>> {
  let cursor = from;
  const asked = new Map<string, number>();
  for (;;) {
    for (; cursor < reader.received.length; cursor++) {
      const { event, at } = reader.received[cursor]!;
      if (isTurnEnd(event, turnId)) {
        // A streamed send's stream ends with its turn: waited for (briefly), so its seqs are all counted.
        await Promise.race([turn.streamRead, sleep(STREAM_END_WAIT_MS)]);
        return event.type as NonNullable<SentTurn['end']>;
      }
      if (event.type === 'approval.requested' && event.turnId === turnId && !asked.has(event.approvalId)) {
        asked.set(event.approvalId, at);
        turn.phase = 'answering';
        // The first option: `yes` of an ask_my_user question, `approve` of a tool's policy.
        const choice = event.options[0] ?? 'yes';
        const team = await approversOf(http, event.approvalId);
        // A team's question: the user's vote and the approver's (by its own link) race; one decides.
        const answers = await Promise.all([
          settle(http, `/approval/${event.approvalId}/answer`, { choice }),
          ...team.map((link) => settle(http, link, { choice })),
        ]);
        for (const answer of answers) turn.approvals.push({ id: event.approvalId, ...answer, ms: Math.round(performance.now() - at) });
        turn.phase = 'following';
      }
      if (event.type === 'tool.call' && event.executor === 'client' && !asked.has(event.toolCallId)) {
        asked.set(event.toolCallId, at);
        turn.phase = 'answering';
        const answer = await settle(http, `/session/${turn.sessionId}/tool-result`, {
          toolCallId: event.toolCallId,
          output: { found: true },
        });
        turn.toolResults.push({ id: event.toolCallId, ...answer, ms: Math.round(performance.now() - at) });
        turn.phase = 'following';
      }
    }
    if (!(await reader.waitBeyond(cursor, TURN_QUIET_MS))) return 'stuck';
  }
}

/**
 * Sends turns one after another until `until` (performance.now()), each kept in `turns` as it goes
 * (so a soak that stops waiting still has them); stops early at a turn that never ends.
 */
export async function driveSession(
  http: SoakHttp,
  reader: SessionReader,
  turns: SentTurn[],
  options: { label: string; until: number; random: () => number },
): Promise<void> {
  const pick = <T>(values: readonly T[]) => values[Math.floor(options.random() * values.length)]!;
  for (let index = 1; performance.now() < options.until; index++) {
    const kind = pick(TURN_KINDS);
    const turn: SentTurn = {
      sessionId: reader.sessionId,
      kind,
      mode: pick(SEND_MODES),
      idempotencyKey: randomUUID(),
      text: userText(kind, `${options.label}.${index}`),
      approvals: [],
      toolResults: [],
      streamOutOfOrder: 0,
      phase: 'sending',
    };
    turns.push(turn);
    await runTurn(http, reader, turn);
    if (turn.refused || turn.end !== 'turn.completed') break;
    if (turn.regenerated && (turn.regenerated.refused || turn.regenerated.end !== 'turn.completed')) break;
  }
}
