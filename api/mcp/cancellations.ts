// A client's `notifications/cancelled` for a tool call that runs a turn: the turn is aborted, whichever
// API process holds the call (the call's record in PostgreSQL says which turn; store/mcp-tool-calls.ts).
// The process holding the call then sees the turn end and answers it, which the client ignores, as MCP
// says it does for a request it cancelled. A cancellation of nothing running (a finished call, an id
// never seen) does nothing, also as MCP allows.
import type { Request } from 'express';
import type { Principal } from '../../store/api-keys.ts';
import { findMcpToolCall } from '../../store/mcp-tool-calls.ts';
import { getSession } from '../../store/sessions.ts';
import type { ApiDeps } from '../context.ts';
import { abortTurn } from '../sessions/workflows.ts';

interface Cancellation {
  method: 'notifications/cancelled';
  params: { requestId: string | number };
}

function isCancellation(message: unknown): message is Cancellation {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
  const id = params?.requestId;
  return method === 'notifications/cancelled' && (typeof id === 'string' || typeof id === 'number');
}

export async function cancelCall(
  deps: ApiDeps,
  req: Request,
  principal: Principal,
  clientSession: string | undefined,
  message: unknown,
): Promise<void> {
  // Cancelling aborts a turn: what a key that may not start turns may not do either.
  if (!clientSession || !principal.scopes.includes('sessions:write') || !isCancellation(message)) return;
  const { requestId } = message.params;
  try {
    const call = await findMcpToolCall(deps.db, {
      userId: principal.userId,
      keyId: principal.keyId,
      clientSession,
      requestId: String(requestId),
    });
    const session = call ? await getSession(deps.db, call.sessionId) : undefined;
    if (call && session) await abortTurn(deps, session, call.turnId);
  } catch (error) {
    req.log.warn({ err: error, requestId }, 'could not cancel an MCP tool call');
  }
}
