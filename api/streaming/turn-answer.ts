// How a request that starts a turn (a send, a regenerate) answers: `?async=1` at once with 202, with
// `Accept: text/event-stream` the SSE stream of that turn until its terminal event (questions to the
// user, their answers and the resumed turn included), otherwise it waits for the turn to end and
// answers with the reply; or, as soon as the turn waits on someone (a person answering an approval),
// with what it waits for, rather than holding the connection for days (202 after WAIT_LIMIT_MS).
// The answers' schemas are the contract's (contract/operations/turn-answers.ts).
import type { Request, Response } from 'express';
import { approvalLinks, approvalToken } from '../../lib/approval-token.ts';
import { serviceBaseUrl } from '../../lib/urls.ts';
import { publicBaseUrl } from '../public-url.ts';
import type { ApiDeps } from '../context.ts';
import type { Reply } from '../route.ts';
import type { MessageView, SessionEvent } from '../../contract/events.ts';
import { isTurnEnd, isTurnQuestion, turnEventFilter } from '../../contract/turn-events.ts';
import { getApproval } from '../../store/approvals.ts';
import { getSession } from '../../store/sessions.ts';
import { awaitedClientToolCalls, awaitedView } from '../../store/tool-calls.ts';
import { turnMessages } from '../../store/messages.ts';
import { waitingDescendants } from '../sessions/child-sessions.ts';
import { acceptsEventStream, streamEvents, wantsChildren } from './sse.ts';
import { waitForEvent } from './wait-for-event.ts';
import { onClientGone } from './client-gone.ts';

/** Longest a waiting request holds the connection before answering 202 with the message id. */
const WAIT_LIMIT_MS = 10 * 60_000;

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

/** The reply of a finished turn: the text of its last assistant message, and its structured reply if it has one. */
function replyOf(messages: MessageView[]): { text: string; messageId: string | null; json?: { json: unknown } } {
  const last = messages.filter((message) => message.role === 'assistant').at(-1);
  const text = last?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';
  const json = last?.parts.find((part) => part.type === 'json');
  return { text, messageId: last?.id ?? null, ...(json ? { json: { json: json.json } } : {}) };
}

export async function answerTurn(deps: ApiDeps, answer: TurnAnswer): Promise<Reply | undefined> {
  const { req, res, sessionId, turnId, userMessageId } = answer;
  const accepted = { messageId: userMessageId, ...answer.extra };
  if (answer.async) return { status: 202, body: accepted };

  if (acceptsEventStream(req)) {
    // The session too: a command may have opened a new one, and a client resuming the stream after
    // a broken connection reads that session's events.
    res.set({ 'x-message-id': userMessageId, 'x-turn-id': turnId, 'x-session-id': sessionId });
    const turnEvents = turnEventFilter(turnId, userMessageId);
    const { alsoStream } = answer;
    await streamEvents({
      req,
      res,
      hub: deps.events,
      sessionId,
      afterSeq: answer.firstSeq - 1,
      heartbeatMs: deps.config.limits.sseHeartbeatMs,
      // The turn's filter sees every event (it keeps state), whatever `alsoStream` says.
      filter: alsoStream ? (event) => turnEvents(event) || alsoStream(event) : turnEvents,
      until: (event) => isTurnEnd(event, turnId),
      ...(wantsChildren(req.query) ? { relayChildren: { db: deps.db, resume: false } } : {}),
    });
    return undefined;
  }

  const closed = new AbortController();
  onClientGone(res, () => closed.abort());
  // A sign-in's link binds whoever opens it to the user's server: only for a key that may connect servers and answer questions.
  const scopes = req.principal?.scopes ?? [];
  const connectLinks = scopes.includes('agents:write') && scopes.includes('approvals:answer');
  const result = await turnResult(deps, { ...answer, signal: closed.signal, baseUrl: publicBaseUrl(deps.config, req), connectLinks });
  return result ?? { status: 202, body: accepted };
}

export interface TurnFollow {
  sessionId: string;
  turnId: string;
  userMessageId: string;
  firstSeq: number;
  signal: AbortSignal;
  /** Members added to the answer. */
  extra?: Record<string, unknown>;
  /** Sees each of the turn's own events as it is read (progress for a client that shows it). */
  onTurnEvent?: (event: SessionEvent) => void;
  /** Longest the follow waits for the turn to end or wait (default: a waiting send's, 10 minutes). */
  waitLimitMs?: number;
  /** Where people reach the service, for links in the answer (default: PUBLIC_BASE_URL, else the configured address). */
  baseUrl?: string;
  /**
   * Whether a sign-in's `url` may be in the answer: whoever opens it connects their account at the server to the
   * user's, so only a caller who may do that itself (`agents:write` and `approvals:answer`) gets it.
   */
  connectLinks?: boolean;
}

/**
 * A waiting send's answer, without an HTTP exchange (an MCP tool call follows a turn this way): the
 * turn's reply once it ends, or what it waits on; undefined when the wait limit passed or `signal` ended it.
 */
export async function turnResult(deps: ApiDeps, follow: TurnFollow): Promise<Reply | undefined> {
  const { sessionId, turnId, userMessageId } = follow;
  const accepted = { messageId: userMessageId, ...follow.extra };
  const end = await waitForTurn(
    deps,
    sessionId,
    turnId,
    userMessageId,
    follow.firstSeq,
    follow.signal,
    follow.onTurnEvent,
    follow.waitLimitMs,
  );
  if (!end) return undefined;
  if ('kind' in end) return { status: 200, body: { ...accepted, status: 'waiting', waitingFor: end } };
  if (end.type === 'approval.requested' && end.connect) {
    // A sign-in asked for: its link starts it (only a person's browser does; a fetch shows a button).
    const { approvalId, expiresAt } = end;
    const url = follow.connectLinks
      ? { url: approvalLinks(follow.baseUrl ?? serviceBaseUrl(deps.config), approvalToken(deps.masterKey, approvalId), []).page }
      : {};
    return {
      status: 200,
      body: {
        ...accepted,
        status: 'waiting',
        waitingFor: { kind: 'connect', approvalId, server: end.connect.serverId, ...url, expiresAt },
      },
    };
  }
  if (end.type === 'approval.requested') {
    const { approvalId, question, options, expiresAt } = end;
    return {
      status: 200,
      body: { ...accepted, status: 'waiting', waitingFor: { kind: 'approval', approvalId, question, options, expiresAt } },
    };
  }
  if (end.type === 'tool.call') {
    // Every client call of that step: they were written together, with the step's message.
    const toolCalls = (await awaitedClientToolCalls(deps.db, sessionId)).filter((call) => call.messageId === end.messageId);
    return { status: 200, body: { ...accepted, status: 'waiting', waitingFor: { kind: 'tool', toolCalls: toolCalls.map(awaitedView) } } };
  }
  const reply = replyOf(await turnMessages(deps.db, sessionId, userMessageId));
  const status = end.type === 'turn.completed' ? 'completed' : end.type === 'turn.failed' ? 'failed' : 'aborted';
  return {
    status: 200,
    body: {
      ...accepted,
      reply: reply.text,
      ...reply.json,
      replyMessageId: reply.messageId,
      status,
      ...(end.type === 'turn.failed' ? { error: end.error } : {}),
    },
  };
}

/**
 * The turn's terminal event, or what it waits on: a question (still unanswered when read: one answered
 * in the meantime no longer holds the turn, so the wait goes on past it), a step's calls of custom
 * tools (still awaited from the client), or sessions of agents it called that wait on someone (those
 * still waiting when read); undefined at the limit.
 */
async function waitForTurn(
  deps: ApiDeps,
  sessionId: string,
  turnId: string,
  userMessageId: string,
  afterSeq: number,
  signal: AbortSignal,
  onTurnEvent?: (event: SessionEvent) => void,
  waitLimitMs = WAIT_LIMIT_MS,
): Promise<SessionEvent | NonNullable<Awaited<ReturnType<typeof waitingDescendants>>> | undefined> {
  const deadline = Date.now() + waitLimitMs;
  const ended = (event: SessionEvent) => isTurnEnd(event, turnId);
  const asked = (event: SessionEvent) => isTurnQuestion(event, turnId);
  const turnEvents = turnEventFilter(turnId, userMessageId);
  for (let after = afterSeq; ;) {
    const event = await waitForEvent(
      { hub: deps.events, sessionId, afterSeq: after, timeoutMs: Math.max(0, deadline - Date.now()), signal },
      (candidate) => {
        // The filter keeps state (which messages are this turn's): it must see every event, in order.
        const ours = turnEvents(candidate);
        if (ours) onTurnEvent?.(candidate);
        const clientCall = ours && candidate.type === 'tool.call' && candidate.executor === 'client';
        return ended(candidate) || asked(candidate) || clientCall || (ours && candidate.type === 'subagent.waiting');
      },
    );
    if (!event) return event;
    if (event.type === 'subagent.waiting') {
      const userId = (await getSession(deps.db, sessionId))?.userId;
      const waiting = userId === undefined ? undefined : await waitingDescendants(deps.db, userId, sessionId);
      if (waiting) return waiting;
    } else if (event.type === 'tool.call') {
      const awaited = await awaitedClientToolCalls(deps.db, sessionId);
      if (awaited.some((call) => call.messageId === event.messageId)) return event;
    } else if (!isTurnQuestion(event, turnId)) {
      return event;
    } else if ((await getApproval(deps.db, event.approvalId))?.status === 'unanswered') {
      return event;
    }
    after = event.seq;
  }
}
