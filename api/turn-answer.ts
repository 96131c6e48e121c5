// How a request that starts a turn (a send, a regenerate) answers: `?async=1` at once with 202, with
// `Accept: text/event-stream` the SSE stream of that turn until its terminal event, otherwise it
// waits for the turn to end and answers with the reply (202 after WAIT_LIMIT_MS).
import type { Request, Response } from 'express';
import type { ApiDeps } from './context.ts';
import type { Reply } from './route.ts';
import type { MessageView, SessionEvent } from '../lib/events.ts';
import { turnMessages } from '../store/messages.ts';
import { streamEvents } from './sse.ts';
import { isTurnEnd, turnEventFilter } from './turn-events.ts';
import { waitForEvent } from './wait-for-event.ts';

/** Longest a waiting request holds the connection before answering 202 with the message id. */
const WAIT_LIMIT_MS = 10 * 60_000;

export const TURN_ENDED_SCHEMA = {
  type: 'object',
  required: ['messageId', 'reply', 'status'],
  properties: {
    messageId: { type: 'string', description: 'The user message the turn answers' },
    reply: { type: 'string', description: 'Text of the final assistant message' },
    replyMessageId: { type: ['string', 'null'] },
    status: { enum: ['completed', 'failed', 'aborted'] },
    error: { type: 'string' },
  },
};

export const TURN_ACCEPTED_SCHEMA = {
  type: 'object',
  required: ['messageId'],
  properties: { messageId: { type: 'string', description: 'The user message the turn answers' } },
};

export interface TurnAnswer {
  req: Request;
  res: Response;
  sessionId: string;
  turnId: string;
  /** The user message the turn answers: `turnId` itself, except for a regenerated turn. */
  userMessageId: string;
  /** seq of the first event of this request (the user message, or the revert before a regenerated turn). */
  firstSeq: number;
  async: boolean;
  /** Members added to the JSON answers. */
  extra?: Record<string, unknown>;
  /** Events besides the turn's own that the SSE form shows (e.g. the revert before a regenerated turn). */
  alsoStream?: (event: SessionEvent) => boolean;
}

/** The reply of a finished turn: the text of its last assistant message. */
function replyOf(messages: MessageView[]): { text: string; messageId: string | null } {
  const last = messages.filter((message) => message.role === 'assistant').at(-1);
  const text = last?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';
  return { text, messageId: last?.id ?? null };
}

export async function answerTurn(deps: ApiDeps, answer: TurnAnswer): Promise<Reply | undefined> {
  const { req, res, sessionId, turnId, userMessageId } = answer;
  const accepted = { messageId: userMessageId, ...answer.extra };
  if (answer.async) return { status: 202, body: accepted };

  if (req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream') {
    res.set({ 'x-message-id': userMessageId, 'x-turn-id': turnId });
    const turnEvents = turnEventFilter(turnId, userMessageId);
    const { alsoStream } = answer;
    await streamEvents({
      req,
      res,
      db: deps.db,
      hub: deps.events,
      sessionId,
      afterSeq: answer.firstSeq - 1,
      heartbeatMs: deps.config.limits.sseHeartbeatMs,
      filter: alsoStream ? (event) => alsoStream(event) || turnEvents(event) : turnEvents,
      until: isTurnEnd(turnId),
    });
    return undefined;
  }

  const closed = new AbortController();
  res.on('close', () => closed.abort());
  const end = await waitForEvent(
    { db: deps.db, hub: deps.events, sessionId, afterSeq: answer.firstSeq, timeoutMs: WAIT_LIMIT_MS, signal: closed.signal },
    isTurnEnd(turnId),
  );
  if (!end) return { status: 202, body: accepted };
  const reply = replyOf(await turnMessages(deps.db, sessionId, userMessageId));
  const status = end.type === 'turn.completed' ? 'completed' : end.type === 'turn.failed' ? 'failed' : 'aborted';
  return {
    status: 200,
    body: {
      ...accepted,
      reply: reply.text,
      replyMessageId: reply.messageId,
      status,
      ...(end.type === 'turn.failed' ? { error: end.error } : {}),
    },
  };
}
