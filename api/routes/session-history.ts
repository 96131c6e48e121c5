// Changing a conversation's course: fork it into a new session, revert it to before a message,
// regenerate a reply, or compact it. A revert is taken in PostgreSQL, as a send is: under the session's
// lock, in order with sends (refused while one is taken and its turn not ended), with no worker needed.
// So is a regeneration, the revert with its turn's inbox row, which wakes the session's workflow as a
// send does. A compaction goes through the session workflow (refused while a turn runs), and waits for
// its summary; a fork only reads its origin.
import { checkSendModel } from '../sessions/send-model.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { forkSession } from '../../store/fork.ts';
import {
  findSessionMessage,
  revertFrom,
  MessageNotFoundError,
  NotAnAssistantMessageError,
  SessionBusyError,
  type RevertOutcome,
  type SessionMessage,
} from '../../store/revert.ts';
import { InboxFullError, takeRegeneration } from '../../store/session-inbox.ts';
import type { Session } from '../../store/sessions.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { newId } from '../../lib/ids.ts';
import { loadSendableSession, loadWritableSession } from '../sessions/access.ts';
import { compactInSession } from '../sessions/workflows.ts';
import { wakeSession } from '../sessions/wake.ts';
import { queueFull } from '../sessions/send.ts';
import { answerTurn } from '../streaming/turn-answer.ts';
import { holdsTurn, isAsync } from '../streaming/sse.ts';
import type { ModelOverride } from '../../core/turn-types.ts';

const BUSY = 'A turn is running in this session; try again when it has ended';
const notInConversation = (messageId: string) =>
  new NotFoundError(`There is no message "${messageId}" in the conversation of this session`);

/** The message to revert from, checked before the revert (which checks again, under the session's lock). */
async function revertTarget(deps: ApiDeps, session: Session, messageId: string): Promise<SessionMessage> {
  const message = await findSessionMessage(deps.db, session.id, messageId);
  if (!message || message.reverted) throw notInConversation(messageId);
  if (session.status !== 'idle' || message.status === 'streaming') throw new ConflictError(BUSY);
  return message;
}

/**
 * Reverts in one transaction under the session's lock, which a send takes too: a send taken first makes
 * the session busy (409), one taken after comes after the revert. The session's workflow holds nothing
 * a revert changes (each step reads the conversation from PostgreSQL), so none is asked; a compaction
 * running meanwhile finds its summary stale when it writes it (store/compactions.ts).
 */
async function revertInPostgres(deps: ApiDeps, session: Session, messageId: string): Promise<string[]> {
  try {
    return (await revertFrom(deps.db, { sessionId: session.id, messageId })).reverted;
  } catch (error) {
    if (error instanceof SessionBusyError) throw new ConflictError(BUSY);
    if (error instanceof MessageNotFoundError) throw notInConversation(messageId);
    throw error;
  }
}

/** The regeneration taken (store/session-inbox.ts), its refusals as problems; the session's workflow woken for it. */
async function regenerateInPostgres(
  deps: ApiDeps,
  session: Session,
  regenerate: { messageId: string; turnId: string; model?: ModelOverride },
): Promise<RevertOutcome> {
  let taken: RevertOutcome;
  try {
    taken = await takeRegeneration(deps.db, {
      sessionId: session.id,
      userId: session.userId,
      ...regenerate,
      maxWaitingPerUser: deps.config.limits.queuedSendsPerUser,
    });
  } catch (error) {
    if (error instanceof SessionBusyError) throw new ConflictError(BUSY);
    if (error instanceof MessageNotFoundError) throw notInConversation(regenerate.messageId);
    if (error instanceof NotAnAssistantMessageError) {
      throw new ValidationError(error.message, [{ path: '/assistantMessageId', message: 'is not an assistant reply' }]);
    }
    if (error instanceof InboxFullError) throw queueFull(error);
    throw error;
  }
  wakeSession(deps, session, regenerate.turnId);
  return taken;
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
        return { status: 200, body: { reverted: await revertInPostgres(deps, session, body.messageId) } };
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
        const result = await regenerateInPostgres(deps, session, { messageId: message.id, turnId, ...(model ? { model } : {}) });
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
