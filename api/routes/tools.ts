// Tools: the results a client posts for the calls of its custom tools (tool servers: mcp-servers.ts). A
// result is taken by PostgreSQL, workers running or not (store/client-tool-answers.ts): the first answer
// for a call stands, so two answers racing each other get 200 and 409, and an answer racing the turn's
// timeout or its end is either taken or refused, never both. The session's workflow is then woken, as
// for a send (api/sessions/wake.ts), and hands the answer to its waiting turn.
import { isDeepStrictEqual } from 'node:util';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { ConflictError, NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { findToolCall } from '../../store/tool-calls.ts';
import { runningRunOfSession } from '../../store/workflow-runs.ts';
import { storeClientToolAnswer, type ClientToolAnswer } from '../../store/client-tool-answers.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { wakeSession } from '../sessions/wake.ts';

export function toolRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.submitToolResult, {
      async handle({ params, body, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        const call = await findToolCall(deps.db, session.id, body.toolCallId);
        if (!call) throw new NotFoundError(`This session has no tool call "${body.toolCallId}"`);
        if (call.executor !== 'client')
          throw new ConflictError(`The tool call "${body.toolCallId}" is run by the service, not by the client`);
        const answered = `The tool call "${body.toolCallId}" is answered already (or timed out)`;
        // A workflow run's turns are its own, not the session workflow's: nothing there takes an answer.
        const run = await runningRunOfSession(deps.db, session.id);
        if (run) throw new ConflictError(`The tool call "${body.toolCallId}" is not awaited: workflow run ${run.id} drives this session`);
        const answer: ClientToolAnswer = body.error !== undefined ? { error: body.error } : { output: body.output };
        const outcome = await storeClientToolAnswer(deps.db, {
          sessionId: session.id,
          userId: session.userId,
          messageId: call.messageId,
          toolCallId: call.toolCallId,
          callSeq: call.seq,
          answer,
        });
        if (outcome.status === 'ended')
          throw new ConflictError(`The tool call "${body.toolCallId}" is no longer awaited: its turn has ended`);
        // The same answer again (a retry after a lost response) is answered as the first was.
        if (outcome.status === 'decided' && !isDeepStrictEqual(outcome.answer, answer)) throw new ConflictError(answered);
        // Woken for the same answer again too: the first request's wake-up may have been lost with its process.
        const target = { id: session.id, userId: session.userId, agentId: session.agentId, revision: session.revision };
        wakeSession(deps, target, call.messageId);
        return { status: 200, body: { toolCallId: call.toolCallId, status: 'answered' as const } };
      },
    }),
  ];
}
