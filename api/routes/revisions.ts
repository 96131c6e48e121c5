// Which revision serves an agent's new sessions: promote, rollback and traffic shares (a staged deploy
// is POST /deploy?stage=1). After a change of the live revision the cron schedules are reconciled to
// it, as after a deploy; each change's `agent.changed` webhook event, recorded with it, goes out. Once a
// change has committed nothing after it answers 503: a client's retry of a rollback would roll back
// again. A reconcile that could not be asked for is logged; promoting the live revision asks again.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { getRevision, type Agent } from '../../store/agents.ts';
import { promote, rollback, setTraffic, type RecordedDeliveries } from '../../store/revision-changes.ts';
import { countCronTriggers } from '../../store/user-holdings.ts';
import { refusePastScheduleLimit } from '../user-limits.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { changeView } from '../agents/revision-views.ts';
import { startRecordedDeliveries } from '../webhooks/publish.ts';
import { ConflictError, NotFoundError } from '../../lib/workflow-safe/errors.ts';
import { bestSetScore } from '../../store/evals.ts';
import { getSet } from '../../store/eval-sets.ts';

/** The change's `agent.changed` deliveries, recorded with it, started now that it committed. */
export function publishChange(deps: ApiDeps, deliveries: RecordedDeliveries): Promise<void> {
  return startRecordedDeliveries(deps, 'agent.changed', deliveries);
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

  /** A promote gated on an eval: the best completed run of the revision against the set must pass `minScore`. */
  async function refuseWithoutPassingEval(agent: Agent, revision: number, set: string, minScore: number): Promise<void> {
    if (!(await getSet(deps.db, agent.userId, set))) throw new NotFoundError(`You have no eval set "${set}"`);
    const best = await bestSetScore(deps.db, { agentId: agent.id, revision, setName: set });
    if (best && best.score >= minScore) return;
    const percent = (score: number) => `${Math.round(score * 1000) / 10}%`;
    throw new ConflictError(
      best
        ? `Revision ${revision} is not promoted: its best eval against "${set}" (${best.runId}, version ${best.version}) passed ${percent(best.score)} of its cases, under the ${percent(minScore)} required`
        : `Revision ${revision} is not promoted: it has no completed eval run against the set "${set}" (POST /agent/${agent.name}/evals {revision: ${revision}, set: "${set}"})`,
    );
  }

  /** Cron schedules follow the live revision; a reconcile not asked for now waits for the next one (logged). */
  async function followSchedules(agent: Agent, liveNow: number, liveBefore: number | null): Promise<void> {
    const [now, before] = await Promise.all([
      getRevision(deps.db, agent.id, liveNow),
      liveBefore === null ? undefined : getRevision(deps.db, agent.id, liveBefore),
    ]);
    try {
      await reconcileSchedules(deps, agent.id, [now?.bundle, before?.bundle], `Revision ${liveNow} is live`);
    } catch (error) {
      deps.logger.warn({ err: error, agentId: agent.id }, 'schedules not reconciled after a change of the live revision; promote it again');
    }
  }

  return [
    defineRoute(OPERATIONS.promoteRevision, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        if (body.requireEval) await refuseWithoutPassingEval(agent, body.revision, body.requireEval.set, body.requireEval.minScore ?? 1);
        // The live one already: nothing changes, and its schedules are asked for again (a retry mends them).
        if (agent.revision !== body.revision) await refuseSchedulesPastLimit(agent, body.revision);
        const result = await promote(deps.db, { agentId: agent.id, revision: body.revision, keyId: principal!.keyId });
        if (!result.changed) {
          await followSchedules(agent, result.live, null);
          return { status: 200, body: { live: result.live, changed: false, change: null } };
        }
        req.log.info({ agentId: agent.id, revision: body.revision }, 'revision promoted');
        await publishChange(deps, result.deliveries);
        await followSchedules(agent, result.change.liveAfter, result.change.liveBefore);
        return { status: 200, body: { live: result.change.liveAfter, changed: true, change: changeView(result.change) } };
      },
    }),
    defineRoute(OPERATIONS.rollbackRevision, {
      async handle({ req, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const { change, deliveries } = await rollback(deps.db, { agentId: agent.id, keyId: principal!.keyId });
        req.log.info({ agentId: agent.id, revision: change.liveAfter }, 'revision rolled back');
        await publishChange(deps, deliveries);
        await followSchedules(agent, change.liveAfter, change.liveBefore);
        return { status: 200, body: { live: change.liveAfter, changed: true, change: changeView(change) } };
      },
    }),
    defineRoute(OPERATIONS.setRevisionTraffic, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const { change, deliveries } = await setTraffic(deps.db, {
          agentId: agent.id,
          shares: body as Record<string, number>,
          keyId: principal!.keyId,
        });
        req.log.info({ agentId: agent.id, traffic: change.traffic }, 'traffic shares set');
        await publishChange(deps, deliveries);
        return { status: 200, body: { live: change.liveAfter, traffic: change.traffic, change: changeView(change) } };
      },
    }),
  ];
}
