// Reading and deleting agents. Names are per user: another user's agent name is simply not found.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { deleteAgent, findAgent, getRevision, listAgents, listRevisions, type Agent } from '../../store/agents.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { describeTriggers } from '../triggers/urls.ts';
import { publicBaseUrl } from '../public-url.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import type { Principal } from '../../store/api-keys.ts';

const agentSummary = {
  type: 'object',
  required: ['id', 'name', 'revision', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    revision: { type: 'integer', description: 'The current revision' },
    model: { type: 'object' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const revisionSchema = {
  type: 'object',
  required: ['revision', 'createdAt', 'bundle', 'warnings'],
  properties: {
    revision: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    bundle: { $ref: '/schema/bundle.json' },
    warnings: { type: 'array', items: { type: 'string' } },
  },
};

export function agentRoutes(deps: ApiDeps) {
  async function agentNamed(principal: Principal | undefined, name: string): Promise<Agent> {
    const agent = await findAgent(deps.db, principal!.userId, name);
    if (!agent) throw new NotFoundError(`You have no agent named "${name}"`);
    return agent;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/agent',
      summary: 'List your agents',
      tag: 'agents',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'Your agents by name',
          schema: { type: 'object', required: ['agents'], properties: { agents: { type: 'array', items: agentSummary } } },
        },
      },
      async handle({ principal }) {
        const agents = await listAgents(deps.db, principal!.userId);
        const withModels = await Promise.all(
          agents.map(async (agent) => ({ ...agent, model: (await getRevision(deps.db, agent.id, agent.revision))?.bundle.model })),
        );
        return { status: 200, body: { agents: withModels.map(({ userId: _userId, ...agent }) => agent) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agent/:name',
      summary: 'An agent: its current revision (defaults applied) and trigger URLs',
      tag: 'agents',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'The agent',
          schema: {
            ...agentSummary,
            required: [...agentSummary.required, 'bundle', 'warnings', 'triggers'],
            properties: {
              ...agentSummary.properties,
              bundle: { $ref: '/schema/bundle.json' },
              warnings: { type: 'array', items: { type: 'string' } },
              triggers: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    kind: { enum: ['webhook', 'cron'] },
                    url: { type: 'string', description: 'Webhook triggers: POST here (no key; the URL is the secret)' },
                    expression: { type: 'string' },
                    timezone: { type: 'string' },
                    scheduleId: { type: 'string', description: 'Cron triggers: the Temporal Schedule (Web UI, Schedules)' },
                    workflow: { type: 'string' },
                  },
                },
              },
            },
          },
        },
        404: { description: 'You have no agent of that name' },
      },
      async handle({ req, params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const current = (await getRevision(deps.db, agent.id, agent.revision))!;
        const triggers = describeTriggers(
          current.bundle.triggers,
          { userId: agent.userId, agentId: agent.id },
          deps.masterKey,
          publicBaseUrl(deps.config, req),
        );
        const { userId: _userId, ...view } = agent;
        return {
          status: 200,
          body: { ...view, model: current.bundle.model, bundle: current.bundle, warnings: current.warnings, triggers },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agent/:name/revisions',
      summary: "An agent's revisions, newest first",
      tag: 'agents',
      auth: { kind: 'scope', scope: 'read' },
      responses: {
        200: {
          description: 'Revisions without their bundles',
          schema: {
            type: 'object',
            required: ['revisions'],
            properties: {
              revisions: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { revision: { type: 'integer' }, createdAt: { type: 'string' }, warnings: { type: 'array' } },
                },
              },
            },
          },
        },
        404: { description: 'You have no agent of that name' },
      },
      async handle({ params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const revisions = await listRevisions(deps.db, agent.id);
        return { status: 200, body: { revisions: revisions.map(({ agentId: _agentId, ...revision }) => revision) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agent/:name/revisions/:revision',
      summary: 'One revision with its whole bundle',
      tag: 'agents',
      auth: { kind: 'scope', scope: 'read' },
      responses: { 200: { description: 'The revision', schema: revisionSchema }, 404: { description: 'No such agent or revision' } },
      async handle({ params, principal }) {
        const agent = await agentNamed(principal, params.name!);
        const number = Number(params.revision);
        const revision = Number.isInteger(number) && number > 0 ? await getRevision(deps.db, agent.id, number) : undefined;
        if (!revision) throw new NotFoundError(`Agent "${agent.name}" has no revision ${params.revision}`);
        const { agentId: _agentId, ...view } = revision;
        return { status: 200, body: view };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/agent/:name',
      summary: 'Delete an agent (its sessions stay readable; the name becomes free)',
      tag: 'agents',
      auth: { kind: 'scope', scope: 'agents:write' },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'You have no agent of that name' } },
      async handle({ req, params, principal }) {
        const agent = await deleteAgent(deps.db, principal!.userId, params.name!);
        if (!agent) throw new NotFoundError(`You have no agent named "${params.name}"`);
        req.log.info({ agentId: agent.id }, 'agent deleted');
        const deleted = await getRevision(deps.db, agent.id, agent.revision);
        await reconcileSchedules(deps, agent.id, [deleted?.bundle], 'The agent is deleted');
        return { status: 204 };
      },
    }),
  ];
}
