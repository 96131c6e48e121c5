// POST /agent/<name>/command/<command>: a custom command's template, resolved with the shared resolver
// (contract/commands.ts), sent as a message to the command's agent, in the session named or a new one.
// A `subtask: true` command runs in a new child session of the session it is called from, and its
// reply comes back there (workflows/session.ts returns it when the child's turn ends).
import { OPERATIONS } from '../../contract/operations/index.ts';
import { resolveCommand } from '../../contract/commands.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { newId } from '../../lib/ids.ts';
import { findAgent, getRevision } from '../../store/agents.ts';
import { openSessionOnce, type Session } from '../../store/sessions.ts';
import type { ApiDeps } from '../context.ts';
import { actIdempotently } from '../idempotency.ts';
import { defineRoute } from '../route.ts';
import { loadSendableSession } from '../sessions/access.ts';
import { sendAndAnswer } from '../sessions/send.ts';
import { holdsTurn, isAsync } from '../streaming/sse.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';

export function commandRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.runCommand, {
      holdsConnection: holdsTurn,
      async handle({ req, res, params, body, query, principal }) {
        const userId = principal!.userId;
        const agent = await loadOwnedAgent(deps.db, userId, params.name!);
        const { bundle } = (await getRevision(deps.db, agent.id, agent.revision))!;
        const command = bundle.command && Object.hasOwn(bundle.command, params.command!) ? bundle.command[params.command!]! : undefined;
        if (!command) {
          const known = Object.keys(bundle.command ?? {});
          throw new NotFoundError(
            `Agent "${agent.name}" has no command "${params.command}"` + (known.length ? `; its commands: ${known.join(', ')}` : ''),
          );
        }
        const resolved = resolveCommand(command.template, {
          ...(body.args ? { args: body.args } : {}),
          ...(body.flags ? { flags: body.flags } : {}),
        });
        if (!resolved.ok) {
          const first = resolved.errors[0]!;
          throw new ValidationError(
            `The command "${params.command}" cannot run: ${first.path} ${first.message}`,
            resolved.errors.map(({ path, message }) => ({ path, message })),
          );
        }

        const target = command.agent ? await findAgent(deps.db, userId, command.agent) : agent;
        if (!target) throw new NotFoundError(`The command "${params.command}" runs on agent "${command.agent}", which you do not have`);
        // The session a subtask is called from (its reply goes back there), or the one the command runs in.
        const named = body.sessionId ? await loadSendableSession(deps, principal, body.sessionId) : undefined;
        const parent = command.subtask ? named : undefined;
        if (named && !command.subtask && named.agentId !== target.id) {
          throw new ConflictError(`Session "${named.id}" belongs to another agent than the one the command runs on ("${target.name}")`);
        }

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
            const session: Session =
              named && !command.subtask
                ? named
                : await openSessionOnce(deps.db, {
                    id: ids.sessionId,
                    userId,
                    agentId: target.id,
                    revision: target.revision,
                    ...(parent ? { parentSessionId: parent.id } : {}),
                  });
            return sendAndAnswer(deps, {
              req,
              res,
              session,
              parts: [{ type: 'text', text: resolved.prompt }],
              ...(command.model ? { model: command.model } : {}),
              ...(parent ? { replyTo: { sessionId: parent.id, messageId: ids.replyMessageId, command: params.command! } } : {}),
              async: isAsync(query),
              ifBusy: query.ifBusy,
              body: { command: params.command, ...body },
              extra: { sessionId: session.id, ...(parent ? { parentSessionId: parent.id } : {}) },
            });
          },
        );
      },
    }),
  ];
}
