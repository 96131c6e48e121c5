// Approvals over the authenticated API: create (what the SDK's askHuman calls), read (optionally
// waiting for the answer), list, and answer. The public signed-link answer shares the answer path
// and lives in approval-links.ts. Another user's approval is 403 (ids are global, as sessions'), an unknown one 404.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import { countOpenApprovals } from '../../store/user-holdings.ts';
import { refusePastApprovalLimit } from '../user-limits.ts';
import type { ApiDeps } from '../context.ts';
import type { Principal } from '../../store/api-keys.ts';
import { getRevision } from '../../store/agents.ts';
import { getApproval, getDispatches, listApprovals, type Approval } from '../../store/approvals.ts';
import { seatDispatchesOf, seatsOf } from '../../store/approval-votes.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { APPROVAL_LIMITS, parseApprovalRequest } from '../../lib/workflow-safe/approvals.ts';
import type { AnswerBody } from '../../contract/operations/approvals.ts';
import { isId, newId } from '../../lib/ids.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { publicBaseUrl } from '../public-url.ts';
import { answerApproval, startApproval } from '../approvals/workflows.ts';
import { approvalView } from '../approvals/view.ts';
import { waitForSettled } from '../streaming/approval-wait.ts';
import { answerByToken } from './approval-links.ts';
import { actIdempotently } from '../idempotency.ts';
import { loadOwnedAgent } from '../agents/owned-agent.ts';
import { teamProblems } from '../../store/team-check.ts';
import { delegationRefusal, handOnVote } from '../approvals/delegation.ts';

export async function loadOwnedApproval(deps: ApiDeps, principal: Principal | undefined, id: string): Promise<Approval> {
  const approval = isId('apr', id) ? await getApproval(deps.db, id) : undefined;
  if (!approval) throw new NotFoundError(`There is no approval "${id}"`);
  if (approval.userId !== principal?.userId) throw new ForbiddenError('This approval belongs to another user');
  return approval;
}

export function approvalRoutes(deps: ApiDeps) {
  const { approvals: settings } = deps.config;
  const viewContext = (req: Parameters<typeof publicBaseUrl>[1], principal: Principal | undefined) => ({
    masterKey: deps.masterKey,
    baseUrl: publicBaseUrl(deps.config, req),
    mayAnswer: principal?.scopes.includes('approvals:answer') ?? false,
    mayActForApprovers: principal?.scopes.includes('agents:write') ?? false,
  });

  return [
    defineRoute(OPERATIONS.createApproval, {
      maxima: { body: { expiresInMs: settings.maxExpiryMs } },
      async handle({ req, body, principal }) {
        const { agent: agentName, sessionId, channels, ...request } = body;
        const parsed = parseApprovalRequest(request, settings, { team: true });
        if (!parsed.ok) throw new ValidationError(parsed.error, [{ path: parsed.path ?? '', message: parsed.error }]);
        const team = parsed.request.team;
        const session = sessionId !== undefined ? await loadOwnedSession(deps.db, principal, sessionId) : undefined;
        let target = session ? { agentId: session.agentId, revision: session.revision } : undefined;
        if (agentName !== undefined) {
          const agent = await loadOwnedAgent(deps.db, principal!.userId, agentName);
          if (session && session.agentId !== agent.id) {
            throw new ValidationError('The session belongs to another agent', [
              { path: '/agent', message: 'is not the agent of the session' },
            ]);
          }
          target = session ? target : { agentId: agent.id, revision: agent.revision };
        }
        if (channels !== undefined) await checkChannels(deps, target, channels);
        const approval = await actIdempotently(
          deps.db,
          req,
          {
            userId: principal!.userId,
            route: 'POST /approval',
            request: body,
            // Its creation time too: a retry asks the same approval, with the same expiry.
            fresh: () => ({ approvalId: newId('apr'), createdAt: new Date().toISOString() }),
          },
          async ({ ids: { approvalId, createdAt }, replayed }) => {
            // A retry of a recorded approval answers it as it stands; one not recorded yet (the engine did
            // not answer the first request in time) joins the same approval workflow, and is recorded once.
            const recorded = replayed ? await getApproval(deps.db, approvalId) : undefined;
            if (recorded) return recorded;
            if (!replayed)
              refusePastApprovalLimit(await countOpenApprovals(deps.db, principal!.userId), deps.config.limits.openApprovalsPerUser);
            // Checked against the directory once, when first taken: a retry answers the same approval whatever changed since.
            if (!replayed && team) {
              const problems = await teamProblems(deps.db, principal!.userId, { ...team, expiresInMs: parsed.request.expiresInMs });
              if (problems.length > 0) throw new ValidationError('Some approvers are not as they must be (PUT /approver/<name>)', problems);
            }
            return startApproval(deps, {
              approvalId,
              userId: principal!.userId,
              source: 'api',
              ...(target ?? {}),
              ...(session ? { sessionId: session.id } : {}),
              ...(channels !== undefined ? { channels } : {}),
              request: parsed.request,
              settings,
              // A key recorded before the creation time was kept with it has none: now, then.
              ...(createdAt ? { createdAt } : {}),
            });
          },
        );
        const seats = approval.team ? await seatsOf(deps.db, approval.id) : undefined;
        return { status: 201, body: approvalView(approval, viewContext(req, principal), undefined, seats) };
      },
    }),
    defineRoute(OPERATIONS.listApprovals, {
      async handle({ req, query, principal }) {
        const page = await listApprovals(deps.db, principal!.userId, query);
        const context = viewContext(req, principal);
        return { status: 200, body: { approvals: page.approvals.map((approval) => approvalView(approval, context)), next: page.next } };
      },
    }),
    defineRoute(OPERATIONS.getApproval, {
      holdsConnection: (_req, query) => Number(query.wait) > 0,
      maxima: { query: { wait: settings.maxWaitSeconds } },
      async handle({ req, res, params, query, principal }) {
        const found = await loadOwnedApproval(deps, principal, params.id!);
        const approval = await waitForSettled(deps, res, found, query.wait);
        const [dispatches, seats, seatDispatches] = await Promise.all([
          getDispatches(deps.db, approval.id),
          approval.team ? seatsOf(deps.db, approval.id) : undefined,
          approval.team ? seatDispatchesOf(deps.db, approval.id) : undefined,
        ]);
        return { status: 200, body: approvalView(approval, viewContext(req, principal), dispatches, seats, seatDispatches) };
      },
    }),
    defineRoute(OPERATIONS.answerApproval, {
      // The token form (a public answer link) is keyless; an approval id needs a key.
      publicWhen: (req) => !isId('apr', String(req.params.ref ?? '')),
      bodyCheckedByHandler: true,
      async handle(input) {
        const { req, params, principal } = input;
        if (!isId('apr', params.ref!)) return answerByToken(deps, input);
        const body = parseAnswerBody(req.body);
        const approval = await loadOwnedApproval(deps, principal, params.ref!);
        const taken = await answerApproval(deps, approval, { choice: body.choice, note: body.note ?? null, via: 'api' });
        // A vote of several that did not decide: taken, and the approval waits on the others.
        return { status: taken.status === 'answered' ? 200 : 202, body: { id: approval.id, ...taken } };
      },
    }),
    defineRoute(OPERATIONS.delegateApproval, {
      async handle({ req, params, body, principal }) {
        const approval = await loadOwnedApproval(deps, principal, params.id!);
        if (!approval.team) throw new ValidationError('Only an approval with approvers has votes to hand on', []);
        const handed = await handOnVote(deps, approval, body);
        if (handed.kind !== 'delegated-now') throw delegationRefusal(handed, body, 'key');
        const [seats, seatDispatches] = await Promise.all([seatsOf(deps.db, approval.id), seatDispatchesOf(deps.db, approval.id)]);
        const current = (await getApproval(deps.db, approval.id))!;
        return {
          status: 200,
          body: approvalView(current, viewContext(req, principal), await getDispatches(deps.db, approval.id), seats, seatDispatches),
        };
      },
    }),
  ];
}

/** `channels` narrows the asking agent's channels: it needs that agent, and each provider one the agent declares. */
async function checkChannels(deps: ApiDeps, target: { agentId: string; revision: number } | undefined, channels: readonly string[]) {
  if (!target) {
    throw new ValidationError('channels are those of an agent: give `agent` or `sessionId` with them', [
      { path: '/channels', message: 'needs agent or sessionId' },
    ]);
  }
  const revision = await getRevision(deps.db, target.agentId, target.revision);
  const declared = new Set<string>(revision?.bundle.userChannels.map((channel) => channel.provider));
  const unknown = channels.flatMap((provider, index) => (declared.has(provider) ? [] : [{ provider, index }]));
  if (unknown.length > 0) {
    const offered = declared.size ? `its channels: ${[...declared].join(', ')}` : 'it has no channels';
    throw new ValidationError(
      `The agent has no ${unknown.map(({ provider }) => provider).join(', ')} channel (${offered})`,
      unknown.map(({ index }) => ({ path: `/channels/${index}`, message: 'is not a channel of the agent' })),
    );
  }
}

/** The id form's body, checked here because the token form of the same path also takes forms. */
function parseAnswerBody(body: unknown): AnswerBody & { choice: string } {
  const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const extra = Object.keys(record).filter((key) => key !== 'choice' && key !== 'note');
  const problems: Array<{ path: string; message: string }> = extra.map((key) => ({ path: `/${key}`, message: 'is not a known field' }));
  const { choice, note } = record;
  if (typeof choice !== 'string' || choice.trim() === '' || choice.length > APPROVAL_LIMITS.optionChars)
    problems.push({ path: '/choice', message: `must be a non-empty string of at most ${APPROVAL_LIMITS.optionChars} characters` });
  if (note !== undefined && (typeof note !== 'string' || note.length > APPROVAL_LIMITS.noteChars))
    problems.push({ path: '/note', message: `must be a string of at most ${APPROVAL_LIMITS.noteChars} characters` });
  if (problems.length > 0) throw new ValidationError('The answer is not valid', problems);
  return { choice: choice as string, ...(typeof note === 'string' ? { note } : {}) };
}
