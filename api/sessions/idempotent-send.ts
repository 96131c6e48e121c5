// A send under an Idempotency-Key. A retried send re-uses the first send's message id, so it is taken
// once and its turn runs once (store/session-inbox.ts finds the message, also while its own turn runs,
// so an ifBusy=reject retry is not refused by it), and the retry answers for that same turn; a first
// send refused for good (409, ifBusy=reject on a busy session) is refused again.
import type { Request } from 'express';
import type { ApiDeps } from '../context.ts';
import type { Session } from '../../store/sessions.ts';
import { newId } from '../../lib/ids.ts';
import type { IfBusy } from '../../contract/if-busy.ts';
import { actIdempotently } from '../idempotency.ts';

export function sendIdempotently<R>(
  deps: ApiDeps,
  req: Request,
  session: Session,
  /** `key` (present, even undefined): the key this send is taken under instead of the request's header. */
  send: { body: unknown; ifBusy: IfBusy; key?: string | undefined },
  act: (ids: { messageId: string; ifBusy: IfBusy }) => Promise<R>,
): Promise<R> {
  return actIdempotently(
    deps.db,
    req,
    {
      userId: session.userId,
      route: 'POST /session/:id',
      request: { sessionId: session.id, body: send.body, ifBusy: send.ifBusy },
      ...('key' in send ? { key: send.key } : {}),
      fresh: () => ({ messageId: newId('msg') }),
      // A twin of an ifBusy=reject send would race the first one's recording (which makes the session
      // busy) and could be refused while the first is taken: it waits for the first one's verdict.
      // Never longer than a call to Temporal may take: the first one's verdict is a PostgreSQL transaction's.
      ...(send.ifBusy === 'reject' ? { waitForFirstMs: deps.config.temporalCallTimeoutMs } : {}),
    },
    ({ ids }) => act({ messageId: ids.messageId, ifBusy: send.ifBusy }),
  );
}
