// POST /agent/<name>/command/<command>: a custom command's template, resolved with the shared resolver
// (contract/commands.ts), sent as a message to the command's agent, in the session named or a new one.
// A `subtask: true` command runs in a new child session of the session it is called from, and its
// reply comes back there (workflows/session.ts returns it when the child's turn ends).
import { OPERATIONS } from '../../contract/operations/index.ts';
import { newId } from '../../lib/ids.ts';
import type { ApiDeps } from '../context.ts';
import { actIdempotently } from '../idempotency.ts';
import { defineRoute } from '../route.ts';
import { sendAndAnswer } from '../sessions/send.ts';
import { commandMessage, commandSession, planCommand } from '../sessions/command-plan.ts';
import { holdsTurn, isAsync } from '../streaming/sse.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';

export function commandRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.runCommand, {
      holdsConnection: holdsTurn,
      async handle({ req, res, params, body, query, principal }) {
        const userId = principal!.userId;
        const agent = await loadOwnedAgent(deps.db, userId, params.name!);
        const plan = await planCommand(deps, principal!, agent, params.command!, body);
        // A session this request opens is chosen once per Idempotency-Key: a retry goes to the same one.
        return actIdempotently(
          deps.db,
          req,
          {
            userId,
            route: 'POST /agent/:name/command/:command',
            request: { agent: agent.id, command: params.command, body, ifBusy: query.ifBusy },
            fresh: () => ({ sessionId: newId('ses'), replyMessageId: newId('msg') }),
          },
          async ({ ids }) => {
            const session = await commandSession(deps, plan, ids.sessionId);
            const { parentSessionId, ...message } = commandMessage(plan, ids.replyMessageId);
            return sendAndAnswer(deps, {
              req,
              res,
              session,
              ...message,
              async: isAsync(query),
              ifBusy: query.ifBusy,
              body: { command: params.command, ...body },
              extra: { sessionId: session.id, ...(parentSessionId ? { parentSessionId } : {}) },
            });
          },
        );
      },
    }),
  ];
}
