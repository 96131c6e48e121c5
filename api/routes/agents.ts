// Reading and deleting agents. Names are per user: another user's agent name is simply not found.
import { commandPlaceholders, commandUsage } from '../../contract/commands.ts';
import type { Bundle } from '../../contract/bundle.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteAgent, getRevision, listAgents, listRevisions, type Agent } from '../../store/agents.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { describeTriggers } from '../triggers/urls.ts';
import { mayReadCapabilities, readOnlyBundle, readOnlyTriggers } from '../agents/read-only-view.ts';
import { withNextFirings } from '../triggers/next-firings.ts';
import { publicBaseUrl } from '../public-url.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import type { Principal } from '../../store/api-keys.ts';
import { loadOwnedAgent, noAgentNamed } from '../agents/owned-agent.ts';
import { listChanges } from '../../store/revision-changes.ts';
import { changeView, revisionState } from '../agents/revision-views.ts';

/** The changes GET /agent/<name>/revisions lists, newest first. */
const CHANGES_LISTED = 100;

/** The agent's custom commands with what each needs, for a CLI's help and a dashboard's form. */
function commandViews(bundle: Bundle) {
  return Object.entries(bundle.command ?? {}).map(([name, command]) => ({
    name,
    template: command.template,
    usage: commandUsage(command.template),
    ...commandPlaceholders(command.template),
    ...(command.agent ? { agent: command.agent } : {}),
    ...(command.model ? { model: command.model } : {}),
    subtask: command.subtask ?? false,
  }));
}

export function agentRoutes(deps: ApiDeps) {
  const agentNamed = (principal: Principal | undefined, name: string): Promise<Agent> => loadOwnedAgent(deps.db, principal!.userId, name);

  return [
    defineRoute(OPERATIONS.listAgents, {
      async handle({ principal }) {
        const agents = await listAgents(deps.db, principal!.userId);
        const withModels = await Promise.all(
          agents.map(async (agent) => ({ ...agent, model: (await getRevision(deps.db, agent.id, agent.revision))?.bundle.model })),
        );
        return { status: 200, body: { agents: withModels.map(({ userId: _userId, ...agent }) => agent) } };
      },
    }),
    defineRoute(OPERATIONS.getAgent, {
      async handle({ req, params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const current = (await getRevision(deps.db, agent.id, agent.revision))!;
        const triggers = await withNextFirings(
          deps,
          describeTriggers(
            current.bundle.triggers,
            { userId: agent.userId, agentId: agent.id },
            deps.masterKey,
            publicBaseUrl(deps.config, req),
          ),
        );
        const { userId: _userId, ...view } = agent;
        const full = mayReadCapabilities(principal!);
        return {
          status: 200,
          body: {
            ...view,
            model: current.bundle.model,
            bundle: full ? current.bundle : readOnlyBundle(current.bundle),
            warnings: current.warnings,
            triggers: full ? triggers : readOnlyTriggers(triggers),
            commands: commandViews(current.bundle),
            mcpUrl: `${publicBaseUrl(deps.config, req)}/agent/${encodeURIComponent(agent.name)}/mcp`,
            a2aUrl: `${publicBaseUrl(deps.config, req)}/agent/${encodeURIComponent(agent.name)}/a2a/`,
          },
        };
      },
    }),
    defineRoute(OPERATIONS.listRevisions, {
      async handle({ params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const [revisions, changes] = await Promise.all([listRevisions(deps.db, agent.id), listChanges(deps.db, agent.id, CHANGES_LISTED)]);
        return {
          status: 200,
          body: {
            revisions: revisions.map((revision) => {
              const { agentId: _agentId, neverLive: _neverLive, ...view } = revision;
              return { ...view, ...revisionState(agent, revision) };
            }),
            live: agent.revision,
            traffic: agent.traffic,
            changes: changes.map(changeView),
          },
        };
      },
    }),
    defineRoute(OPERATIONS.getRevision, {
      async handle({ params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const number = Number(params.revision);
        const revision = Number.isInteger(number) && number > 0 ? await getRevision(deps.db, agent.id, number) : undefined;
        if (!revision) throw new NotFoundError(`Agent "${agent.name}" has no revision ${params.revision}`);
        const { agentId: _agentId, fetchedSkills: _fetchedSkills, ...view } = revision;
        return { status: 200, body: mayReadCapabilities(principal!) ? view : { ...view, bundle: readOnlyBundle(view.bundle) } };
      },
    }),
    defineRoute(OPERATIONS.deleteAgent, {
      async handle({ req, params, principal }) {
        const agent = await deleteAgent(deps.db, principal!.userId, params.name!);
        if (!agent) throw noAgentNamed(params.name!);
        req.log.info({ agentId: agent.id }, 'agent deleted');
        const deleted = await getRevision(deps.db, agent.id, agent.revision);
        await reconcileSchedules(deps, agent.id, [deleted?.bundle], 'The agent is deleted');
        return { status: 204 };
      },
    }),
  ];
}
