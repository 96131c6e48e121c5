// Changing a conversation's course: fork it into a new session, revert it to before a message,
// regenerate a reply, or compact it. Revert, regenerate and compact go through the session workflow (in
// order with sends, refused while a turn runs); a fork only reads its origin.
import { checkSendModel } from '../sessions/send-model.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { forkSession } from '../../store/fork.ts';
import { findSessionMessage, type SessionMessage } from '../../store/revert.ts';
import type { Session } from '../../store/sessions.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { newId } from '../../lib/ids.ts';
import { loadSendableSession, loadWritableSession } from '../sessions/access.ts';
import { compactInSession, revertInSession } from '../sessions/workflows.ts';
import { answerTurn } from '../streaming/turn-answer.ts';
import { holdsTurn, isAsync } from '../streaming/sse.ts';

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
    defineRoute(OPERATIONS.forkSession, {
      async handle({ params, principal }) {
        const origin = await loadWritableSession(deps.db, principal, params.id!);
        const fork = await forkSession(deps.db, origin);
        return { status: 201, body: { id: fork.id, forkedFrom: origin.id } };
      },
    }),
    defineRoute(OPERATIONS.revertSession, {
      async handle({ params, body, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        await revertTarget(deps, session, body.messageId);
        const { reverted } = await revertInSession(deps, session, { messageId: body.messageId });
        return { status: 200, body: { reverted } };
      },
    }),
    defineRoute(OPERATIONS.compactSession, {
      async handle({ params, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        if (session.status !== 'idle') throw new ConflictError('A turn is running in this session; try again when it has ended');
        const result = await compactInSession(deps, session);
        return { status: 200, body: result };
      },
    }),
    defineRoute(OPERATIONS.regenerateReply, {
      holdsConnection: holdsTurn,
      async handle({ req, res, params, body, query, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        await checkSendModel(deps, session, body.model);
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
          async: isAsync(query),
          extra: { turnId, reverted: result.reverted },
          alsoStream: (event) => event.seq === result.seq,
        });
      },
    }),
  ];
}
