// Sessions: create, read, list, send (streamed, async or waiting) and abort.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { findAgent } from '../../store/agents.ts';
import { createSession, listAgentSessions, type Session } from '../../store/sessions.ts';
import { listMessages } from '../../store/messages.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { PROVIDER_IDS } from '../../lib/bundle/index.ts';
import type { MessagePart } from '../../contract/events.ts';
import type { IfBusy } from '../../workflows/session.ts';
import { loadOwnedSession, loadSendableSession } from '../sessions/access.ts';
import { abortSession, sendToSession, sendToSessionAsync } from '../sessions/workflows.ts';
import { answerTurn, TURN_ACCEPTED_SCHEMA, TURN_REPLY_SCHEMA } from '../streaming/turn-answer.ts';
import { checkFileParts } from '../sessions/file-parts.ts';
import { streamsTurn } from '../streaming/sse.ts';
import { IDEMPOTENCY_KEY_HEADERS } from '../idempotency.ts';
import { sendIdempotently } from '../sessions/idempotent-send.ts';

export const MAX_TEXT_PART_CHARS = 200_000;

const sessionSchema = {
  type: 'object',
  required: ['id', 'agentId', 'revision', 'status', 'usage', 'lastSeq', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    agentId: { type: 'string' },
    revision: { type: 'integer', description: 'The agent revision this session is pinned to' },
    status: { enum: ['idle', 'running', 'waiting'] },
    usage: {
      type: 'object',
      properties: { inputTokens: { type: 'integer' }, outputTokens: { type: 'integer' }, costUsd: { type: 'number' } },
    },
    lastSeq: { type: 'integer', description: 'seq of the newest event' },
    forkedFrom: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const MODEL_OVERRIDE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['modelId'],
  description: 'Use another model for this turn only',
  properties: { providerId: { enum: [...PROVIDER_IDS] }, modelId: { type: 'string', minLength: 1, maxLength: 200 } },
};

const sendBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['parts'],
  properties: {
    parts: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { enum: ['text', 'file'] } },
        if: { properties: { type: { const: 'text' } } },
        then: {
          additionalProperties: false,
          required: ['type', 'text'],
          properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1, maxLength: MAX_TEXT_PART_CHARS } },
        },
        else: {
          additionalProperties: false,
          required: ['type', 'url'],
          description: 'A file uploaded to this session (POST /session/<id>/upload): images, text or PDF',
          properties: {
            type: { const: 'file' },
            url: { type: 'string', pattern: '^media/', maxLength: 400 },
            mediaType: { type: 'string', maxLength: 200 },
            filename: { type: 'string', maxLength: 255 },
          },
        },
      },
    },
    model: MODEL_OVERRIDE_SCHEMA,
  },
};

interface SendBody {
  parts: MessagePart[];
  model?: { providerId?: string; modelId: string };
}

interface SendQuery {
  async?: string;
  ifBusy: IfBusy;
}

function sessionView(session: Session) {
  const { userId: _userId, ...view } = session;
  return view;
}

export function sessionRoutes(deps: ApiDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/agent/:name/session',
      summary: 'Start a session with an agent (pinned to its current revision)',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: { schema: { type: 'object', additionalProperties: false, properties: {} } },
      responses: {
        201: { description: 'The new session', schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
        404: { description: 'You have no agent of that name' },
      },
      async handle({ params, principal }) {
        const agent = await findAgent(deps.db, principal!.userId, params.name!);
        if (!agent) throw new NotFoundError(`You have no agent named "${params.name}"`);
        const session = await createSession(deps.db, { userId: agent.userId, agentId: agent.id, revision: agent.revision });
        return { status: 201, body: { id: session.id } };
      },
    }),
    defineRoute<unknown, { limit: number; before?: string }>({
      method: 'get',
      path: '/agent/:name/sessions',
      summary: "An agent's sessions, newest first; pass `next` as `before` for the following page",
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'read' },
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
          before: { type: 'string', maxLength: 64, description: 'The id of the last session of the previous page' },
        },
      },
      responses: {
        200: {
          description: 'Sessions, and the cursor of the next page (null at the end)',
          schema: {
            type: 'object',
            required: ['sessions', 'next'],
            properties: { sessions: { type: 'array', items: sessionSchema }, next: { type: ['string', 'null'] } },
          },
        },
        404: { description: 'You have no agent of that name' },
      },
      async handle({ params, query, principal }) {
        const agent = await findAgent(deps.db, principal!.userId, params.name!);
        if (!agent) throw new NotFoundError(`You have no agent named "${params.name}"`);
        // One more than asked tells whether a next page exists.
        const found = await listAgentSessions(deps.db, agent.id, {
          limit: query.limit + 1,
          ...(query.before ? { before: query.before } : {}),
        });
        const sessions = found.slice(0, query.limit);
        const next = found.length > query.limit ? sessions.at(-1)!.id : null;
        return { status: 200, body: { sessions: sessions.map(sessionView), next } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/session/:id',
      summary: 'A session with its messages, status and usage totals',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'The session',
          schema: { ...sessionSchema, properties: { ...sessionSchema.properties, messages: { type: 'array', items: { type: 'object' } } } },
        },
        403: { description: "Another user's session" },
        404: { description: 'No such session' },
      },
      async handle({ params, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        return { status: 200, body: { ...sessionView(session), messages: await listMessages(deps.db, session.id) } };
      },
    }),
    defineRoute<SendBody, SendQuery>({
      method: 'post',
      path: '/session/:id',
      summary: 'Send a message: streamed (Accept: text/event-stream), async (?async=1) or waiting for the reply',
      description:
        'A send while a turn runs is queued and runs after it, in order; `ifBusy=reject` answers 409 instead, `ifBusy=interrupt` ' +
        'aborts the running turn first. With `Accept: text/event-stream` the answer is the SSE stream of this turn, ending after ' +
        'its terminal event (`turn.completed`, `turn.failed` or `turn.aborted`), questions to the user (`approval.requested`, ' +
        '`.answered`, `.expired`) and the resumed turn included, with a comment line while it waits. Waiting (neither SSE nor ' +
        '`async`), it answers 200 when the turn ends, or at once when the turn starts waiting on someone: `status: waiting` ' +
        'with `waitingFor`; the turn goes on once answered.',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: { required: true, schema: sendBodySchema },
      headers: IDEMPOTENCY_KEY_HEADERS,
      opensStream: streamsTurn,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          async: {
            enum: ['1', 'true', '0', 'false'],
            description:
              '1: answer 202 {messageId} at once, whether or not a worker is running (the message is recorded and its turn ' +
              'runs when one takes it; resending with the same Idempotency-Key never runs it twice). With ifBusy=reject the ' +
              "session's verdict is awaited: 202, 409, or 503 when no worker answers within TEMPORAL_CALL_TIMEOUT_MS",
          },
          ifBusy: { enum: ['queue', 'reject', 'interrupt'], default: 'queue' },
        },
      },
      responses: {
        200: { description: 'The turn ended, or waits on someone (waiting form; by `status`)', schema: TURN_REPLY_SCHEMA },
        202: { description: 'Accepted (async form, or the wait limit passed)', schema: TURN_ACCEPTED_SCHEMA },
        403: { description: "Another user's session" },
        404: { description: 'No such session' },
        409: {
          description:
            'ifBusy=reject and a turn is running; answered again to every retry with the same Idempotency-Key (within 24 h), ' +
            'even once the session is free',
        },
        410: { description: 'The agent of this session was deleted' },
        422: { description: 'The Idempotency-Key was used for a different request' },
        503: {
          description:
            'Temporal, a worker or the database did not answer in time (TEMPORAL_CALL_TIMEOUT_MS); Retry-After says when to try ' +
            'again. The send may or may not have been accepted (it may still run once the workers are back): retry with the ' +
            'same Idempotency-Key to be safe; without one, check the session before sending again',
        },
      },
      async handle({ req, res, params, body, query, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        const parts = await checkFileParts(deps.db, session.id, body.parts, deps.config.limits.turnFileBytes);
        const async = query.async === '1' || query.async === 'true';
        const { messageId, seq } = await sendIdempotently(deps, req, session, { body, ifBusy: query.ifBusy }, async (ids) => {
          const send = { ...ids, parts, ...(body.model ? { model: body.model } : {}) };
          // Async needs no answer from the session: a signal, taken by Temporal with no worker running.
          // ifBusy=reject needs the session's verdict, so it stays an Update (503 when no worker answers).
          if (async && ids.ifBusy !== 'reject') {
            await sendToSessionAsync(deps, session, { ...send, ifBusy: ids.ifBusy });
            return { messageId: ids.messageId, seq: undefined };
          }
          return { messageId: ids.messageId, seq: (await sendToSession(deps, session, send)).seq };
        });
        if (seq === undefined) return { status: 202, body: { messageId } };

        return answerTurn(deps, {
          req,
          res,
          sessionId: session.id,
          turnId: messageId,
          userMessageId: messageId,
          firstSeq: seq,
          async,
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/session/:id/abort',
      summary: 'Abort the running turn; it ends with turn.aborted and keeps its partial text',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      responses: {
        200: {
          description: 'Whether a turn was running',
          schema: { type: 'object', required: ['aborted'], properties: { aborted: { type: 'boolean' } } },
        },
        503: { description: 'The session did not confirm the abort within TEMPORAL_CALL_TIMEOUT_MS (no worker running); Retry-After' },
      },
      async handle({ params, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        return { status: 200, body: { aborted: await abortSession(deps, session.id) } };
      },
    }),
  ];
}
