// The ids a send acts with under an Idempotency-Key. A retried send re-uses the first send's
// message id, so the session workflow records it once and runs its turn once (it knows the id), and
// the retry answers for that same turn.
import type { Request } from 'express';
import type { ApiDeps } from './context.ts';
import type { Session } from '../store/sessions.ts';
import { hasMessage } from '../store/messages.ts';
import { newId } from '../lib/ids.ts';
import type { IfBusy } from '../workflows/session.ts';
import { idempotentIds } from './idempotency.ts';

export async function sendIds(
  deps: ApiDeps,
  req: Request,
  session: Session,
  send: { body: unknown; ifBusy: IfBusy },
): Promise<{ messageId: string; ifBusy: IfBusy }> {
  const { ids, replayed } = await idempotentIds(deps.db, req, {
    userId: session.userId,
    route: 'POST /session/:id',
    request: { sessionId: session.id, ...send },
    fresh: () => ({ messageId: newId('msg') }),
  });
  // Its own turn, still running, must not make a retry of an `ifBusy=reject` send a 409: once the
  // message is recorded, the send only finds it again.
  const recorded = replayed && send.ifBusy === 'reject' && (await hasMessage(deps.db, session.id, ids.messageId));
  return { messageId: ids.messageId, ifBusy: recorded ? 'queue' : send.ifBusy };
}
