// A send under an Idempotency-Key. A retried send re-uses the first send's message id, so the session
// workflow records it once and runs its turn once (it knows the id), and the retry answers for that
// same turn; a first send refused for good (409, ifBusy=reject on a busy session) is refused again.
import type { Request } from 'express';
import type { ApiDeps } from '../context.ts';
import type { Session } from '../../store/sessions.ts';
import { hasMessage } from '../../store/messages.ts';
import { newId } from '../../lib/ids.ts';
import type { IfBusy } from '../../workflows/session.ts';
import { actIdempotently } from '../idempotency.ts';

export function sendIdempotently<R>(
  deps: ApiDeps,
  req: Request,
  session: Session,
  send: { body: unknown; ifBusy: IfBusy },
  act: (ids: { messageId: string; ifBusy: IfBusy }) => Promise<R>,
): Promise<R> {
  return actIdempotently(
    deps.db,
    req,
    {
      userId: session.userId,
      route: 'POST /session/:id',
      request: { sessionId: session.id, ...send },
      fresh: () => ({ messageId: newId('msg') }),
      // A twin of an ifBusy=reject send would race the first one's recording (which makes the session
      // busy) and could be refused while the first is taken: it waits for the first one's verdict.
      // Never longer than the first one's own call to Temporal may take.
      ...(send.ifBusy === 'reject' ? { waitForFirstMs: deps.config.temporalCallTimeoutMs } : {}),
    },
    async ({ ids, replayed }) => {
      // Its own turn, still running, must not make a retry of an `ifBusy=reject` send a 409: once the
      // message is recorded, the send only finds it again.
      const recorded = replayed && send.ifBusy === 'reject' && (await hasMessage(deps.db, session.id, ids.messageId));
      return act({ messageId: ids.messageId, ifBusy: recorded ? 'queue' : send.ifBusy });
    },
  );
}
