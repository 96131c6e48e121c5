// Changing a conversation's course: fork it into a new session, revert it to before a message, or
// regenerate a reply. Revert and regenerate go through the session workflow (in order with sends,
// refused while a turn runs); a fork only reads its origin.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { forkSession } from '../../store/fork.ts';
import { findSessionMessage, type SessionMessage } from '../../store/revert.ts';
import type { Session } from '../../store/sessions.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { ModelOverride } from '../../workflows/turn-types.ts';
import { loadSendableSession, loadWritableSession } from '../sessions/access.ts';
import { revertInSession } from '../sessions/workflows.ts';
import { answerTurn, TURN_ACCEPTED_SCHEMA, turnReplySchema } from '../streaming/turn-answer.ts';
import { MODEL_OVERRIDE_SCHEMA } from './sessions.ts';
import { streamsTurn } from '../streaming/sse.ts';

const messageIdSchema = { type: 'string', minLength: 1, maxLength: 100 };
const revertedSchema = { type: 'array', items: { type: 'string' }, description: 'The messages that left the conversation, in order' };

/** The message to revert from, checked before the workflow is asked (which checks again, in order). */
async function revertTarget(deps: ApiDeps, session: Session, messageId: string): Promise<SessionMessage> {
  const message = await findSessionMessage(deps.db, session.id, messageId);
  if (!message || message.reverted) throw new NotFoundError(`There is no message "${messageId}" in the conversation of this session`);
  if (session.status !== 'idle' || message.status === 'streaming') {
    throw new ConflictError('A turn is running in this session; try again when it has ended');
  }
  return message;
}

export function sessionHistoryRoutes(deps: ApiDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/session/:id/fork',
      summary: 'Fork a session: a new session of the same agent revision holding a copy of the conversation so far',
      description:
        'The copy holds the finished (completed or aborted) messages that were not reverted, with new ids; a turn still running ' +
        "contributes only what it finished. The fork's events start with `session.created {forkedFrom}` followed by one " +
        "`message.created` per copy. The fork may use the origin's uploaded media (the bytes are shared, not copied).",
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      responses: {
        201: {
          description: 'The new session',
          schema: {
            type: 'object',
            required: ['id', 'forkedFrom'],
            properties: { id: { type: 'string' }, forkedFrom: { type: 'string' } },
          },
        },
        404: { description: 'No such session' },
        410: { description: 'The agent of this session was deleted' },
      },
      async handle({ params, principal }) {
        const origin = await loadWritableSession(deps.db, principal, params.id!);
        const fork = await forkSession(deps.db, origin);
        return { status: 201, body: { id: fork.id, forkedFrom: origin.id } };
      },
    }),
    defineRoute<{ messageId: string }>({
      method: 'post',
      path: '/session/:id/revert',
      summary: 'Revert: the message and every message after it leave the conversation',
      description:
        'The model never sees them again and `GET /session/<id>` no longer lists them; the event `messages.reverted {messageIds}` ' +
        'tells stream readers what to remove. Refused with 409 while a turn runs or is queued.',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: {
        required: true,
        schema: { type: 'object', additionalProperties: false, required: ['messageId'], properties: { messageId: messageIdSchema } },
      },
      responses: {
        200: { description: 'Reverted', schema: { type: 'object', required: ['reverted'], properties: { reverted: revertedSchema } } },
        404: { description: 'No such session, or no such message in its conversation' },
        409: { description: 'A turn is running or queued' },
        410: { description: 'The agent of this session was deleted' },
      },
      async handle({ params, body, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        await revertTarget(deps, session, body.messageId);
        const { reverted } = await revertInSession(deps, session, { messageId: body.messageId });
        return { status: 200, body: { reverted } };
      },
    }),
    defineRoute<{ assistantMessageId: string; model?: ModelOverride }, { async?: string }>({
      method: 'post',
      path: '/session/:id/regenerate',
      summary: 'Regenerate a reply: it and everything after it leave the conversation, and its turn runs again',
      description:
        'The new turn answers the same user message with a turn id of its own (`turnId`, also in `turn.started`, which names the ' +
        '`userMessageId`); its messages belong to that user message. By default it uses the model that made the old reply. ' +
        'Answers like a send: SSE (`messages.reverted`, then the new turn), `?async=1`, or waiting for the reply (or for what the ' +
        'turn waits on, `status: waiting`). 409 while a turn runs.',
      tag: 'sessions',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: {
        required: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['assistantMessageId'],
          properties: { assistantMessageId: messageIdSchema, model: MODEL_OVERRIDE_SCHEMA },
        },
      },
      opensStream: streamsTurn,
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { async: { enum: ['1', 'true', '0', 'false'], description: '1: answer 202 at once' } },
      },
      responses: {
        200: {
          description: 'The new turn ended, or waits on someone (waiting form; by `status`, as for a send)',
          schema: turnReplySchema({
            required: ['turnId', 'reverted'],
            properties: { turnId: { type: 'string' }, reverted: revertedSchema },
          }),
        },
        202: {
          description: 'Accepted (async form, or the wait limit passed)',
          schema: {
            ...TURN_ACCEPTED_SCHEMA,
            required: ['messageId', 'turnId', 'reverted'],
            properties: { ...TURN_ACCEPTED_SCHEMA.properties, turnId: { type: 'string' }, reverted: revertedSchema },
          },
        },
        400: { description: 'The message is not an assistant message' },
        404: { description: 'No such session, or no such message in its conversation' },
        409: { description: 'A turn is running or queued' },
        410: { description: 'The agent of this session was deleted' },
      },
      async handle({ req, res, params, body, query, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        const message = await revertTarget(deps, session, body.assistantMessageId);
        if (message.role !== 'assistant') {
          const detail = `Message "${message.id}" is a ${message.role} message; only an assistant reply can be regenerated`;
          throw new ValidationError(detail, [{ path: '/assistantMessageId', message: 'is not an assistant message' }]);
        }
        const turnId = newId('trn');
        const model = body.model ?? message.model ?? undefined;
        const result = await revertInSession(deps, session, {
          messageId: message.id,
          regenerate: { turnId, ...(model ? { model } : {}) },
        });
        return answerTurn(deps, {
          req,
          res,
          sessionId: session.id,
          turnId,
          userMessageId: result.userMessageId,
          firstSeq: result.seq,
          async: query.async === '1' || query.async === 'true',
          extra: { turnId, reverted: result.reverted },
          alsoStream: (event) => event.seq === result.seq,
        });
      },
    }),
  ];
}
