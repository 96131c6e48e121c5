// Firing an agent from outside: webhook trigger URLs (public: the URL is the secret) and runs of a
// workflow graph through the API. Either way a trigger workflow (`trigger:<sessionId>`) is started
// with ids fixed here and does the firing durably: the fresh session with `trigger.fired`, then the
// first message or the run. Once it has started, the session is opened here as well, so the ids
// answered are readable at once. Under an Idempotency-Key (or a webhook sender's delivery id) a retry
// fires with the first firing's ids, so its start finds that workflow and fires nothing more.
import type { Request } from 'express';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { startTriggerRun } from '../../clients/trigger.ts';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { agentState, getRevision } from '../../store/agents.ts';
import { openTriggeredSession } from '../../store/triggered-sessions.ts';
import { getRun } from '../../store/workflow-runs.ts';
import {
  DependencyUnavailableError,
  ForbiddenError,
  NotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../lib/workflow-safe/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import { assertStorableText } from '../../lib/storable-text.ts';
import { suffixOpens } from '../triggers/urls.ts';
import { type TriggerRef, type TriggerRunInput } from '../../lib/workflow-safe/triggers.ts';
import { createRateLimiter } from '../middleware/rate-limit.ts';
import { callTemporal, isTemporalRefusal } from '../temporal-call.ts';
import { actIdempotently } from '../idempotency.ts';
import { firingKey, firingScope } from '../triggers/idempotency.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { pickRevision } from '../../lib/revision-traffic.ts';

/** One answer for every wrong part, so a stranger learns nothing about which part was wrong. */
const UNKNOWN_TRIGGER = 'There is no trigger at this address';

const MAX_RUN_INPUT_CHARS = 200_000;

/**
 * A start that may have been taken (a deadline or a dropped connection): a retry must re-use its ids.
 * Public: it names no part of the service.
 */
const FIRING_UNKNOWN =
  'This firing was not confirmed in time: it may or may not have been accepted (if it was, it goes on in full). Retry ' +
  'with the same Idempotency-Key to be safe, and it fires once; a retry without one may fire it twice';

/** Temporal refused the start outright: nothing was started and nothing written. */
const NOT_FIRED = 'The trigger could not be fired right now (nothing was started); try again shortly';

/** The ids a firing answers with: a first message's or a run's. */
interface FiringIds {
  sessionId: string;
  messageId?: string;
  runId?: string;
}

function freshFiringIds(workflow: string | undefined): FiringIds {
  return workflow ? { sessionId: newId('ses'), runId: newId('run') } : { sessionId: newId('ses'), messageId: newId('msg') };
}

/** The body as text: JSON stays the JSON text it was; bytes that are not UTF-8 are refused. */
function bodyText(req: Request): string | null {
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (raw.length === 0) return null;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new UnsupportedMediaTypeError('The body must be text (UTF-8), e.g. JSON, plain text or a form');
  }
  if (req.is(['application/json', 'application/*+json'])) {
    try {
      JSON.parse(text);
    } catch {
      throw new ValidationError('The body is not valid JSON', [{ path: '', message: 'is not valid JSON' }]);
    }
  }
  assertStorableText(text, 'body');
  return text;
}

export function triggerRoutes(deps: ApiDeps) {
  const perTrigger = createRateLimiter({
    db: deps.db,
    points: deps.config.triggers.rateLimitPoints,
    windowSeconds: deps.config.limits.rateLimitWindowSeconds,
    prefix: 'trigger',
  });

  async function fire(
    input: Omit<TriggerRunInput, 'sessionId' | 'settings'> & { firedAt: string },
    ids: FiringIds = freshFiringIds(input.workflow),
  ): Promise<FiringIds> {
    // The ids are fixed here, so the workflow (`trigger:<sessionId>`) is the one unit of this firing:
    // started, it opens the session and sends its first message (each step idempotent); not started,
    // nothing was written. A retry with the same ids (same Idempotency-Key) finds it started, and
    // that is the firing: it answers the same ids and starts nothing.
    const { sessionId } = ids;
    const runId = input.workflow ? (ids.runId ?? newId('run')) : undefined;
    const messageId = input.workflow ? undefined : (ids.messageId ?? newId('msg'));
    try {
      await callTemporal(
        deps,
        () =>
          startTriggerRun(deps.temporal.client, deps.config.taskQueue, {
            ...input,
            sessionId,
            ...(runId ? { runId } : {}),
            ...(messageId ? { messageId } : {}),
            settings: deps.config.turns,
          }),
        { unavailable: FIRING_UNKNOWN },
      );
    } catch (error) {
      // The first firing with these ids was taken, though perhaps never confirmed: it opens its session
      // with its own input, and this retry answers its ids.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return ids;
      if (error instanceof DependencyUnavailableError) throw error;
      // Temporal's raw text names its address: the log keeps it, the caller (maybe a stranger) reads none of it.
      deps.logger.warn({ err: error, sessionId }, 'could not start a trigger workflow');
      throw new DependencyUnavailableError(isTemporalRefusal(error) ? NOT_FIRED : FIRING_UNKNOWN);
    }
    // Opened here too, as the workflow opens it (the same rows), so the ids answered are readable at
    // once rather than when a worker gets to it. If this fails the workflow still opens it.
    await openTriggeredSession(deps.db, {
      sessionId,
      userId: input.userId,
      agentId: input.agentId,
      revision: input.revision,
      fired: {
        trigger: input.trigger,
        firedAt: input.firedAt,
        ...(input.workflow ? { workflow: input.workflow } : {}),
        ...(runId ? { runId } : {}),
      },
      ...(input.workflow && runId ? { run: { runId, workflow: input.workflow, input: input.payload } } : {}),
    }).catch((error: unknown) => deps.logger.warn({ err: error, sessionId }, 'could not open a triggered session; its workflow will'));
    return { sessionId, ...(messageId ? { messageId } : {}), ...(runId ? { runId } : {}) };
  }

  return [
    defineRoute(OPERATIONS.fireWebhookTrigger, {
      bodyCheckedByHandler: true,
      async handle({ req, params }) {
        const { userId, agentId, suffix } = params as { userId: string; agentId: string; suffix: string };
        if (!isId('usr', userId) || !isId('agt', agentId) || suffix.length > 200) throw new NotFoundError(UNKNOWN_TRIGGER);
        const agent = await agentState(deps.db, agentId);
        if (!agent || agent.deleted || agent.userId !== userId) throw new NotFoundError(UNKNOWN_TRIGGER);
        const revision = (await getRevision(deps.db, agentId, agent.currentRevision))!;
        const index = revision.bundle.triggers.findIndex((trigger, position) =>
          suffixOpens(trigger, deps.masterKeys, agentId, position, suffix),
        );
        if (index === -1) throw new NotFoundError(UNKNOWN_TRIGGER);
        await perTrigger.consume(`${agentId}:${index}`);
        const payload = bodyText(req);
        const trigger = revision.bundle.triggers[index]!;
        const ref: TriggerRef = { kind: 'webhook', index };
        const fired = await actIdempotently(
          deps.db,
          req,
          {
            userId,
            route: firingScope(agentId, suffix),
            request: { payload },
            fresh: () => freshFiringIds(trigger.workflow),
            key: firingKey(req),
          },
          ({ ids }) =>
            fire(
              {
                userId,
                agentId,
                // A conversation follows the traffic shares; a graph workflow runs on the live revision that has it.
                revision: trigger.workflow ? revision.revision : pickRevision({ revision: revision.revision, traffic: agent.traffic }),
                trigger: ref,
                payload,
                ...(trigger.workflow ? { workflow: trigger.workflow } : {}),
                firedAt: new Date().toISOString(),
              },
              ids,
            ),
        );
        req.log.info({ agentId, sessionId: fired.sessionId }, 'webhook trigger fired');
        return { status: 202, body: fired };
      },
    }),
    defineRoute(OPERATIONS.runWorkflow, {
      async handle({ req, body, params, principal }) {
        const agent = await loadOwnedAgent(deps.db, principal!.userId, params.name!);
        const revision = (await getRevision(deps.db, agent.id, agent.revision))!;
        if (!Object.hasOwn(revision.bundle.workflows, params.workflow!))
          throw new NotFoundError(`Agent "${agent.name}" has no workflow "${params.workflow}"`);
        const input =
          body.input === undefined || body.input === null ? null : typeof body.input === 'string' ? body.input : JSON.stringify(body.input);
        if (input !== null && input.length > MAX_RUN_INPUT_CHARS)
          throw new ValidationError(`input is longer than ${MAX_RUN_INPUT_CHARS} characters`, [{ path: '/input', message: 'is too long' }]);
        const fired = await actIdempotently(
          deps.db,
          req,
          {
            userId: agent.userId,
            route: 'POST /agent/:name/workflow/:workflow',
            request: { agentId: agent.id, workflow: params.workflow, input },
            fresh: () => freshFiringIds(params.workflow),
          },
          ({ ids }) =>
            fire(
              {
                userId: agent.userId,
                agentId: agent.id,
                revision: agent.revision,
                trigger: { kind: 'api' },
                payload: input,
                workflow: params.workflow!,
                firedAt: new Date().toISOString(),
              },
              ids,
            ),
        );
        return { status: 202, body: { sessionId: fired.sessionId, runId: fired.runId! } };
      },
    }),
    defineRoute(OPERATIONS.getRun, {
      async handle({ params, principal }) {
        const run = isId('run', params.id!) ? await getRun(deps.db, params.id!) : undefined;
        if (!run) throw new NotFoundError(`There is no run "${params.id}"`);
        if (run.userId !== principal?.userId) throw new ForbiddenError('This run belongs to another user');
        const { userId: _userId, ...view } = run;
        return { status: 200, body: { ...view, createdAt: run.createdAt.toISOString(), endedAt: run.endedAt?.toISOString() ?? null } };
      },
    }),
  ];
}
