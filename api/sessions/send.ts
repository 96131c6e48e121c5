// A message into a session and the answer of the request that sent it: recorded by the session's
// workflow (once, under an Idempotency-Key), then answered as a send answers (api/streaming/turn-answer.ts):
// 202 at once with `?async=1`, the turn's SSE stream, or the reply once the turn ends or waits.
// Shared by POST /session/<id> and the routes that send on a user's behalf (custom commands).
import type { Request, Response } from 'express';
import type { MessagePart } from '../../contract/events.ts';
import type { Session } from '../../store/sessions.ts';
import type { IfBusy, SubtaskReplyTarget } from '../../workflows/session.ts';
import type { ModelOverride } from '../../core/turn-types.ts';
import type { ApiDeps } from '../context.ts';
import type { Reply } from '../route.ts';
import { answerTurn } from '../streaming/turn-answer.ts';
import { sendIdempotently } from './idempotent-send.ts';
import { sendToSession, sendToSessionAsync } from './workflows.ts';

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

export async function sendAndAnswer(deps: ApiDeps, send: SendRequest): Promise<Reply | undefined> {
  const { req, res, session } = send;
  const { messageId, seq, joined } = await sendIdempotently(deps, req, session, { body: send.body, ifBusy: send.ifBusy }, async (ids) => {
    const message = {
      ...ids,
      parts: send.parts,
      ...(send.model ? { model: send.model } : {}),
      ...(send.replyTo ? { replyTo: send.replyTo } : {}),
    };
    // Async needs no answer from the session: a signal, taken by Temporal with no worker running.
    // ifBusy=reject needs the session's verdict, so it stays an Update (503 when no worker answers).
    if (send.async && ids.ifBusy !== 'reject') {
      await sendToSessionAsync(deps, session, { ...message, ifBusy: ids.ifBusy });
      return { messageId: ids.messageId, seq: undefined, joined: undefined };
    }
    const sent = await sendToSession(deps, session, message);
    return { messageId: ids.messageId, seq: sent.seq, joined: sent.joined };
  });
  if (seq === undefined) return { status: 202, body: { messageId, ...send.extra } };
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
