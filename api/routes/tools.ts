// Tools: the results a client posts for the calls of its custom tools (tool servers: mcp-servers.ts). A
// result goes to the running turn as an Update (clients/client-tools.ts); the turn decides whether the
// call is still awaited, so two answers racing each other get 200 and 409.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import { findToolCall } from '../../store/tool-calls.ts';
import { sendToolResult } from '../../clients/client-tools.ts';
import type { ApiDeps } from '../context.ts';
import { failureProblem } from '../failure-problems.ts';
import { defineRoute } from '../route.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { callTemporal, isWorkflowGone } from '../temporal-call.ts';

export function toolRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.submitToolResult, {
      async handle({ params, body, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        const call = await findToolCall(deps.db, session.id, body.toolCallId);
        if (!call) throw new NotFoundError(`This session has no tool call "${body.toolCallId}"`);
        if (call.executor !== 'client')
          throw new ConflictError(`The tool call "${body.toolCallId}" is run by the service, not by the client`);
        if (call.answered) throw new ConflictError(`The tool call "${body.toolCallId}" is answered already (or timed out)`);
        const notAwaited = `The tool call "${body.toolCallId}" is no longer awaited: its turn has ended`;
        try {
          const ack = await callTemporal(
            deps,
            () =>
              sendToolResult(deps.temporal.client, session.id, {
                messageId: call.messageId,
                toolCallId: call.toolCallId,
                ...(body.error !== undefined ? { error: body.error } : { output: body.output }),
              }),
            { unavailable: 'The session did not confirm the result in time (are the workers running?); posting it again is safe' },
          );
          if (!ack) throw new ConflictError(notAwaited);
          return { status: 200, body: ack };
        } catch (error) {
          // The turn ended between the session's answer (it runs this turn) and the Update reaching it.
          if (isWorkflowGone(error)) throw new ConflictError(notAwaited);
          throw failureProblem(error, {}) ?? error;
        }
      },
    }),
  ];
}
