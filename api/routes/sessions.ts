// Sessions: create, read, list, send (streamed, async or waiting) and abort.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { createSession, listAgentSessions, type Session } from '../../store/sessions.ts';
import { listMessages } from '../../store/messages.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { checkSendModel } from '../sessions/send-model.ts';
import { loadOwnedSession, loadSendableSession } from '../sessions/access.ts';
import { abortSession } from '../sessions/workflows.ts';
import { checkFileParts } from '../sessions/file-parts.ts';
import { holdsTurn, isAsync } from '../streaming/sse.ts';
import { sendAndAnswer } from '../sessions/send.ts';
import { childSessionsOf } from '../sessions/child-sessions.ts';
import { sessionWaitingFor } from '../sessions/waiting-for.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { pickRevision } from '../../lib/revision-traffic.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';

/** The Web UI's list of the session's workflows (session and turns carry its SessionId search attribute). */
function temporalUiLink(config: ApiDeps['config'], sessionId: string): string | undefined {
  if (!config.temporalUiUrl) return undefined;
  const query = encodeURIComponent(`SessionId="${sessionId}"`);
  return `${config.temporalUiUrl}/namespaces/${encodeURIComponent(config.temporalNamespace)}/workflows?query=${query}`;
}

function sessionView(session: Session) {
  const { userId: _userId, callerAgentIds: _callers, ...view } = session;
  return view;
}

export function sessionRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.createSession, {
      async handle({ body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        // A pin names any stored revision, a staged one too; without one, traffic shares decide.
        const pinned = body?.revision;
        if (pinned !== undefined && pinned > agent.latestRevision)
          throw new NotFoundError(`Agent "${agent.name}" has no revision ${pinned} (its latest is ${agent.latestRevision})`);
        const revision = pinned ?? pickRevision(agent);
        const session = await createSession(deps.db, { userId: agent.userId, agentId: agent.id, revision });
        return { status: 201, body: { id: session.id, revision } };
      },
    }),
    defineRoute(OPERATIONS.listSessions, {
      async handle({ params, query, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        // One more than asked tells whether a next page exists.
        const found = await listAgentSessions(deps.db, agent.id, {
          limit: query.limit + 1,
          ...(query.before ? { before: query.before } : {}),
        });
        const sessions = found.slice(0, query.limit);
        const next = found.length > query.limit ? sessions.at(-1)!.id : null;
        return { status: 200, body: { sessions: sessions.map(sessionView), next } };
      },
    }),
    defineRoute(OPERATIONS.getSession, {
      async handle({ params, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        const [waiting, childSessions] = await Promise.all([
          sessionWaitingFor(deps, session),
          childSessionsOf(deps.db, session.userId, session.id),
        ]);
        const workflows = temporalUiLink(deps.config, session.id);
        return {
          status: 200,
          body: {
            ...sessionView(session),
            ...waiting,
            ...(workflows ? { workflowsUrl: workflows } : {}),
            childSessions,
            messages: await listMessages(deps.db, session.id),
          },
        };
      },
    }),
    defineRoute(OPERATIONS.sendMessage, {
      holdsConnection: holdsTurn,
      async handle({ req, res, params, body, query, principal }) {
        const session = await loadSendableSession(deps, principal, params.id!);
        await checkSendModel(deps, session, body.model);
        const parts = await checkFileParts(deps.db, session.id, body.parts, deps.config.limits.turnFileBytes);
        return sendAndAnswer(deps, {
          req,
          res,
          session,
          parts,
          ...(body.model ? { model: body.model } : {}),
          async: isAsync(query),
          ifBusy: query.ifBusy,
          body,
        });
      },
    }),
    defineRoute(OPERATIONS.abortSession, {
      async handle({ params, principal }) {
        const session = await loadOwnedSession(deps.db, principal, params.id!);
        return { status: 200, body: { aborted: await abortSession(deps, session) } };
      },
    }),
  ];
}
