// A message into a session and the answer of the request that sent it: taken in PostgreSQL (once, under
// an Idempotency-Key; store/session-inbox.ts), the session's workflow woken to run its turn, then
// answered as a send answers (api/streaming/turn-answer.ts): 202 at once with `?async=1`, the turn's SSE
// stream, or the reply once the turn ends or waits. No worker is needed for any of it but the turn.
// Shared by POST /session/<id> and the routes that send on a user's behalf (custom commands).
import type { Request, Response } from 'express';
import type { MessagePart } from '../../contract/events.ts';
import type { Session } from '../../store/sessions.ts';
import type { IfBusy } from '../../contract/if-busy.ts';
import type { SubtaskReplyTarget } from '../../core/session-turns.ts';
import type { ModelOverride } from '../../core/turn-types.ts';
import type { ApiDeps } from '../context.ts';
import type { Reply } from '../route.ts';
import { answerTurn } from '../streaming/turn-answer.ts';
import { sendIdempotently } from './idempotent-send.ts';
import { wakeSession } from './wake.ts';
import { InboxFullError, SessionBusyNowError, takeSend, type TakenSend } from '../../store/session-inbox.ts';
import { ConflictError, QueueFullError } from '../../lib/workflow-safe/errors.ts';

/** A full queue frees up as turns end: seconds at the least. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 2;

export interface SendRequest {
  req: Request;
  res: Response;
  session: Session;
  parts: MessagePart[];
  model?: ModelOverride;
  async: boolean;
  ifBusy: IfBusy;
  /** What the Idempotency-Key's request is compared by (the request body as sent). */
  body: unknown;
  /** Members added to the JSON answers. */
  extra?: Record<string, unknown>;
  /** A subtask's send: where its reply goes once its turn ends. */
  replyTo?: SubtaskReplyTarget;
}

export type TakenMessage = TakenSend & { messageId: string };

/**
 * The message taken (once per Idempotency-Key) and its session woken: what every door that sends shares.
 * `keyed: false`: the request's Idempotency-Key header is not this send's (an MCP call opens its session first).
 */
export async function takeMessage(
  deps: ApiDeps,
  send: Omit<SendRequest, 'res' | 'async'>,
  options: { keyed?: boolean } = {},
): Promise<TakenMessage> {
  const keying = { body: send.body, ifBusy: send.ifBusy, ...(options.keyed === false ? { key: undefined } : {}) };
  return sendIdempotently(deps, send.req, send.session, keying, async (ids) => {
    const taken = await takeInStore(deps, send, ids);
    wakeSession(deps, send.session, ids.messageId);
    return { messageId: ids.messageId, ...taken };
  });
}

export async function sendAndAnswer(deps: ApiDeps, send: SendRequest): Promise<Reply | undefined> {
  const { req, res, session } = send;
  const { messageId, seq, joined } = await takeMessage(deps, send);
  if (send.async) return { status: 202, body: { messageId, ...send.extra } };
  return answerTurn(deps, {
    req,
    res,
    sessionId: session.id,
    // A steering message is answered with the turn it joined.
    turnId: joined?.turnId ?? messageId,
    userMessageId: joined?.userMessageId ?? messageId,
    firstSeq: seq,
    async: send.async,
    // The answer names the message sent, also when it joined another's turn.
    extra: { ...send.extra, messageId },
  });
}

/** The send taken in PostgreSQL (store/session-inbox.ts), its refusals as problems. */
async function takeInStore(
  deps: ApiDeps,
  send: Omit<SendRequest, 'res' | 'async'>,
  ids: { messageId: string; ifBusy: IfBusy },
): Promise<TakenSend> {
  try {
    return await takeSend(deps.db, {
      sessionId: send.session.id,
      userId: send.session.userId,
      messageId: ids.messageId,
      parts: send.parts,
      ifBusy: ids.ifBusy,
      ...(send.model ? { model: send.model } : {}),
      ...(send.replyTo ? { replyTo: send.replyTo } : {}),
      maxWaitingPerUser: deps.config.limits.queuedSendsPerUser,
    });
  } catch (error) {
    if (error instanceof SessionBusyNowError) throw new ConflictError('A turn is running in this session (ifBusy=reject)');
    if (error instanceof InboxFullError) throw queueFull(error);
    throw error;
  }
}

/** A user's waiting sends at QUEUED_SENDS_PER_USER: 429 with Retry-After (a regeneration waits as a send does). */
export function queueFull(error: InboxFullError): QueueFullError {
  return new QueueFullError(
    `${error.limit} of your sends are waiting for their turns (QUEUED_SENDS_PER_USER); send again once some have run`,
    QUEUE_FULL_RETRY_AFTER_SECONDS,
  );
}
