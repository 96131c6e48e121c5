// POST /deploy: a JSONC bundle in, a new agent or a new revision out. Every problem is reported at
// once, each with a JSON pointer into the bundle; the failure keeps the interface's
// `{ok: false, errors}` shape and is also a problem document. Skills given by URL are fetched after
// the bundle is valid and frozen into the revision; a skill that cannot be fetched is such a problem.
// `?stage=1` stores the revision without making it live (api/routes/revisions.ts promotes it).
import { PROBLEM_CONTENT_TYPE, PROBLEMS, problemType } from '../../contract/problems.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { validateBundle } from '../../lib/bundle/index.ts';
import { countCronTriggers } from '../../store/user-holdings.ts';
import { refusePastScheduleLimit } from '../user-limits.ts';
import { deployRevision, getRevision } from '../../store/agents.ts';
import { reconcileSchedules } from '../triggers/schedule-reconcile.ts';
import { secretKeys } from '../../store/secrets.ts';
import type { FieldError } from '../../lib/workflow-safe/errors.ts';
import { skillFetcher } from '../agents/fetch-skills.ts';
import { remoteToolLister } from '../agents/fetch-remote-tools.ts';
import type { RegisteredToolsReader } from '../agents/registered-tools.ts';
import { callerGone } from '../agents/caller-gone.ts';
import { listMcpServers } from '../../store/mcp-servers.ts';
import { resolveCallableAgents } from '../agents/callable-agents.ts';
import { checkBundleApprovers } from '../agents/bundle-approvers.ts';
import { agentToolsTaken } from '../../lib/workflow-safe/agent-tools.ts';
import { publishChange } from './revisions.ts';

const stageOf = (query: { stage?: string }) => query.stage === '1' || query.stage === 'true';

export function deployRoutes(deps: ApiDeps, registeredTools: RegisteredToolsReader) {
  const fetchSkills = skillFetcher({
    allowCidrs: deps.config.outbound.allowCidrs,
    limits: { timeoutMs: deps.config.skills.fetchTimeoutMs, maxBytes: deps.config.skills.maxBytes },
  });
  const listRemoteTools = remoteToolLister(deps, registeredTools);
  return [
    defineRoute(OPERATIONS.deployAgent, {
      bodyCheckedByHandler: true,
      async handle({ req, res, query, principal }) {
        const invalid = (errors: FieldError[]) => {
          const first = errors[0]!;
          return {
            status: 400,
            headers: { 'content-type': PROBLEM_CONTENT_TYPE },
            body: {
              ok: false,
              errors,
              type: problemType('invalid-bundle'),
              title: PROBLEMS['invalid-bundle'].title,
              status: PROBLEMS['invalid-bundle'].status,
              detail: `${errors.length} error${errors.length === 1 ? '' : 's'}; first: ${first.path || '(root)'} ${first.message}`,
              traceId: req.traceId,
            },
          };
        };
        const text = typeof req.body === 'string' ? req.body : '';
        const userId = principal!.userId;
        const [existingSecretKeys, registered] = await Promise.all([secretKeys(deps.db, userId), listMcpServers(deps.db, userId)]);
        const result = validateBundle(text, { existingSecretKeys, registeredToolServers: new Set(registered.map((server) => server.id)) });
        if (!result.ok) return invalid(result.errors);
        const crons = result.bundle.triggers.filter((trigger) => trigger.kind === 'cron').length;
        // A staged revision makes no schedule: the limit is checked when it is promoted.
        if (crons > 0 && !stageOf(query)) {
          const others = await countCronTriggers(deps.db, principal!.userId, result.bundle.name);
          refusePastScheduleLimit(others, crons, deps.config.limits.schedulesPerUser);
        }
        const callable = await resolveCallableAgents(deps.db, userId, result.bundle);
        if (!callable.ok) return invalid(callable.errors);
        const approvers = await checkBundleApprovers(deps.db, userId, result.bundle);
        if (approvers.length > 0) return invalid(approvers);
        const [fetched, remote] = await Promise.all([fetchSkills(result.bundle), listRemoteTools(userId, result.bundle, callerGone(res))]);
        if (!fetched.ok || !remote.ok) return invalid([...(fetched.ok ? [] : fetched.errors), ...(remote.ok ? [] : remote.errors)]);
        const shadowed = agentToolsTaken(result.bundle, remote.tools);
        if (shadowed.length > 0) return invalid(shadowed);
        const stage = stageOf(query);
        const { agent, created, change, deliveries } = await deployRevision(deps.db, {
          userId: principal!.userId,
          bundle: result.bundle,
          warnings: result.warnings,
          fetchedSkills: fetched.texts,
          remoteTools: remote.tools,
          callableAgents: callable.agents,
          stage,
          keyId: principal!.keyId,
        });
        const revision = agent.latestRevision;
        req.log.info({ agentId: agent.id, revision, live: agent.revision }, stage ? 'staged' : 'deployed');
        await publishChange(deps, deliveries);
        // A staged revision changes no schedule: they follow the live revision.
        if (!stage) {
          const replaced = change.liveBefore === null ? undefined : await getRevision(deps.db, agent.id, change.liveBefore);
          await reconcileSchedules(deps, agent.id, [result.bundle, replaced?.bundle], `Revision ${revision} is stored`);
        }
        return {
          status: created ? 201 : 200,
          body: { ok: true, agentId: agent.id, revision, liveRevision: agent.revision, warnings: result.warnings },
        };
      },
    }),
  ];
}
