// Which revision serves an agent's new sessions: promote, rollback and traffic shares (a staged deploy
// is POST /deploy?stage=1). After a change of the live revision the cron schedules are reconciled to
// it, as after a deploy; each change is published as the `agent.changed` webhook event.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { getRevision, type Agent } from '../../store/agents.ts';
import { promote, rollback, setTraffic, type RevisionChange } from '../../store/revision-changes.ts';
import { countCronTriggers } from '../../store/user-holdings.ts';
import { refusePastScheduleLimit } from '../user-limits.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { changeView, changedEvent } from '../agents/revision-views.ts';
import { publishFromApi } from '../webhooks/publish.ts';
import { NotFoundError } from '../../lib/workflow-safe/errors.ts';

/** The event of a change of what serves: once per change, whichever process publishes it. */
export function publishChange(deps: ApiDeps, agent: Pick<Agent, 'id' | 'name' | 'userId'>, change: RevisionChange): Promise<void> {
  return publishFromApi(deps, agent.userId, { type: 'agent.changed', data: changedEvent(agent, change) }, `agent.changed:${change.id}`);
}

export function revisionRoutes(deps: ApiDeps) {
  /** The schedules limit as a deploy checks it, for a revision about to become live. */
  async function refuseSchedulesPastLimit(agent: Agent, revision: number): Promise<void> {
    const bundle = (await getRevision(deps.db, agent.id, revision))?.bundle;
    if (!bundle) throw new NotFoundError(`Agent "${agent.name}" has no revision ${revision} (its latest is ${agent.latestRevision})`);
    const crons = bundle.triggers.filter((trigger) => trigger.kind === 'cron').length;
    if (crons > 0)
      refusePastScheduleLimit(await countCronTriggers(deps.db, agent.userId, agent.name), crons, deps.config.limits.schedulesPerUser);
  }

  /** After the live revision changed: schedules follow it, subscribers hear of it. */
  async function afterLiveChange(agent: Agent, change: RevisionChange): Promise<void> {
    const [now, before] = await Promise.all([
      getRevision(deps.db, agent.id, change.liveAfter),
      change.liveBefore === null ? undefined : getRevision(deps.db, agent.id, change.liveBefore),
    ]);
    await publishChange(deps, agent, change);
    await reconcileSchedules(deps, agent.id, [now?.bundle, before?.bundle], `Revision ${change.liveAfter} is live`);
  }

  return [
    defineRoute(OPERATIONS.promoteRevision, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        await refuseSchedulesPastLimit(agent, body.revision);
        const result = await promote(deps.db, { agentId: agent.id, revision: body.revision, keyId: principal!.keyId });
        if (!result.changed) return { status: 200, body: { live: result.live, changed: false, change: null } };
        req.log.info({ agentId: agent.id, revision: body.revision }, 'revision promoted');
        await afterLiveChange(agent, result.change);
        return { status: 200, body: { live: result.change.liveAfter, changed: true, change: changeView(result.change) } };
      },
    }),
    defineRoute(OPERATIONS.rollbackRevision, {
      async handle({ req, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const change = await rollback(deps.db, { agentId: agent.id, keyId: principal!.keyId });
        req.log.info({ agentId: agent.id, revision: change.liveAfter }, 'revision rolled back');
        await afterLiveChange(agent, change);
        return { status: 200, body: { live: change.liveAfter, changed: true, change: changeView(change) } };
      },
    }),
    defineRoute(OPERATIONS.setRevisionTraffic, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const change = await setTraffic(deps.db, { agentId: agent.id, shares: body as Record<string, number>, keyId: principal!.keyId });
        req.log.info({ agentId: agent.id, traffic: change.traffic }, 'traffic shares set');
        await publishChange(deps, agent, change);
        return { status: 200, body: { live: change.liveAfter, traffic: change.traffic, change: changeView(change) } };
      },
    }),
  ];
}
