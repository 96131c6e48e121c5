// POST /agent/<name>/command/<command>: a custom command's template, resolved with the shared resolver
// (contract/commands.ts), sent as a message to the command's agent, in the session named or a new one.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { resolveCommand } from '../../contract/commands.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { findAgent, getRevision } from '../../store/agents.ts';
import { createSession } from '../../store/sessions.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';
import { loadSendableSession } from '../sessions/access.ts';
import { sendAndAnswer } from '../sessions/send.ts';
import { streamsTurn } from '../streaming/sse.ts';

export function commandRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.runCommand, {
      opensStream: streamsTurn,
      async handle({ req, res, params, body, query, principal }) {
        const userId = principal!.userId;
        const agent = await findAgent(deps.db, userId, params.name!);
        if (!agent) throw new NotFoundError(`You have no agent named "${params.name}"`);
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
        // A subtask runs in a session of its own, whatever session it was called from.
        const session =
          body.sessionId && !command.subtask
            ? await loadSendableSession(deps, principal, body.sessionId)
            : await createSession(deps.db, { userId, agentId: target.id, revision: target.revision });
        if (session.agentId !== target.id) {
          throw new ConflictError(`Session "${session.id}" belongs to another agent than the one the command runs on ("${target.name}")`);
        }
        return sendAndAnswer(deps, {
          req,
          res,
          session,
          parts: [{ type: 'text', text: resolved.prompt }],
          ...(command.model ? { model: command.model } : {}),
          async: query.async === '1' || query.async === 'true',
          ifBusy: query.ifBusy,
          body: { command: params.command, ...body },
          extra: { sessionId: session.id },
        });
      },
    }),
  ];
}
