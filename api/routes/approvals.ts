// Approvals over the authenticated API: create (what the SDK's askHuman calls), read (optionally
// waiting for the answer), list, and answer. The public signed-link answer shares the answer path
// and lives in approval-links.ts. Another user's approval is 403 (ids are global, as sessions'), an unknown one 404.
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import type { Principal } from '../../store/api-keys.ts';
import { findAgent } from '../../store/agents.ts';
import { getApproval, getDispatches, listApprovals, type Approval } from '../../store/approvals.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { APPROVAL_LIMITS, parseApprovalRequest, type ApprovalStatus } from '../../lib/approvals.ts';
import { isId, newId } from '../../lib/ids.ts';
import { loadOwnedSession } from '../sessions/access.ts';
import { publicBaseUrl } from '../public-url.ts';
import { answerApproval, startApproval } from '../approvals/workflows.ts';
import { approvalSchema, approvalView } from '../approvals/view.ts';
import { waitForSettled } from '../streaming/approval-wait.ts';
import { answerByToken, ANSWER_PAGE_DESCRIPTION } from './approval-links.ts';
import { actIdempotently, IDEMPOTENCY_KEY_HEADERS } from '../idempotency.ts';

export async function loadOwnedApproval(deps: ApiDeps, principal: Principal | undefined, id: string): Promise<Approval> {
  const approval = isId('apr', id) ? await getApproval(deps.db, id) : undefined;
  if (!approval) throw new NotFoundError(`There is no approval "${id}"`);
  if (approval.userId !== principal?.userId) throw new ForbiddenError('This approval belongs to another user');
  return approval;
}

interface CreateBody {
  question: string;
  options?: string[];
  expiresInMs?: number;
  agent?: string;
  sessionId?: string;
}

interface AnswerBody {
  choice: string;
  note?: string;
}

const answeredSchema = {
  type: 'object',
  required: ['id', 'status', 'choice', 'note', 'answeredAt'],
  properties: {
    id: { type: 'string' },
    status: { const: 'answered' },
    choice: { type: 'string' },
    note: { type: ['string', 'null'] },
    answeredAt: { type: 'string', format: 'date-time' },
  },
};

export function approvalRoutes(deps: ApiDeps) {
  const { approvals: settings } = deps.config;
  const viewContext = (req: Parameters<typeof publicBaseUrl>[1], principal: Principal | undefined) => ({
    masterKey: deps.masterKey,
    baseUrl: publicBaseUrl(deps.config, req),
    mayAnswer: principal?.scopes.includes('approvals:answer') ?? false,
  });

  return [
    defineRoute<CreateBody>({
      method: 'post',
      path: '/approval',
      summary: 'Ask the user a question (what the SDK askHuman calls)',
      description:
        'Creates a durable approval and sends it over the channels (`userChannels`) of `agent` (an agent name), or of the ' +
        "session's agent when only `sessionId` is given; without either, it is answered through the API and its links only. " +
        `Options default to ["yes", "no"] (1 to ${APPROVAL_LIMITS.options}, distinct ignoring case, not bare numbers). ` +
        `\`expiresInMs\` defaults to APPROVAL_DEFAULT_EXPIRY_MS (7 days) and is at most APPROVAL_MAX_EXPIRY_MS. ` +
        'With `sessionId`, its events (approval.requested, .answered, .expired) go to that session.',
      tag: 'approvals',
      auth: { kind: 'scope', scope: 'sessions:write' },
      body: {
        required: true,
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['question'],
          properties: {
            question: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.questionChars },
            options: {
              type: 'array',
              minItems: 1,
              maxItems: APPROVAL_LIMITS.options,
              items: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.optionChars },
            },
            expiresInMs: { type: 'integer', minimum: APPROVAL_LIMITS.minExpiryMs, maximum: settings.maxExpiryMs },
            agent: { type: 'string', minLength: 1, maxLength: 63, description: 'Name of the agent whose channels carry the question' },
            sessionId: { type: 'string', minLength: 1, maxLength: 64, description: 'The session the approval belongs to' },
          },
        },
      },
      headers: IDEMPOTENCY_KEY_HEADERS,
      responses: {
        201: { description: 'Created and being sent', schema: approvalSchema },
        404: { description: 'No such agent or session' },
        422: { description: 'The Idempotency-Key was used for a different request' },
      },
      async handle({ req, body, principal }) {
        const { agent: agentName, sessionId, ...request } = body;
        const parsed = parseApprovalRequest(request, settings);
        if (!parsed.ok) throw new ValidationError(parsed.error, [{ path: '', message: parsed.error }]);
        const session = sessionId !== undefined ? await loadOwnedSession(deps.db, principal, sessionId) : undefined;
        let target = session ? { agentId: session.agentId, revision: session.revision } : undefined;
        if (agentName !== undefined) {
          const agent = await findAgent(deps.db, principal!.userId, agentName);
          if (!agent) throw new NotFoundError(`You have no agent named "${agentName}"`);
          if (session && session.agentId !== agent.id) {
            throw new ValidationError('The session belongs to another agent', [
              { path: '/agent', message: 'is not the agent of the session' },
            ]);
          }
          target = session ? target : { agentId: agent.id, revision: agent.revision };
        }
        const approval = await actIdempotently(
          deps.db,
          req,
          { userId: principal!.userId, route: 'POST /approval', request: body, fresh: () => ({ approvalId: newId('apr') }) },
          async ({ ids: { approvalId }, replayed }) => {
            // A retry of a recorded approval answers it as it stands; one not recorded yet (the first
            // request was not confirmed in time) joins the same approval workflow, which records it once.
            const recorded = replayed ? await getApproval(deps.db, approvalId) : undefined;
            if (recorded) return recorded;
            await startApproval(deps, {
              approvalId,
              userId: principal!.userId,
              source: 'api',
              ...(target ?? {}),
              ...(session ? { sessionId: session.id } : {}),
              request: parsed.request,
              settings,
            });
            return (await getApproval(deps.db, approvalId))!;
          },
        );
        return { status: 201, body: approvalView(approval, viewContext(req, principal)) };
      },
    }),
    defineRoute<unknown, { status?: ApprovalStatus; sessionId?: string; limit: number; before?: string }>({
      method: 'get',
      path: '/approval',
      summary: 'Your approvals, newest first; filter by status or session; pass `next` as `before` for the next page',
      tag: 'approvals',
      auth: { kind: 'scope', scope: 'read' },
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { enum: ['unanswered', 'answered', 'expired'] },
          sessionId: { type: 'string', maxLength: 64 },
          limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
          before: { type: 'string', maxLength: 64, description: 'The id of the last approval of the previous page' },
        },
      },
      responses: {
        200: {
          description: 'Approvals, and the cursor of the next page (null at the end)',
          schema: {
            type: 'object',
            required: ['approvals', 'next'],
            properties: { approvals: { type: 'array', items: approvalSchema }, next: { type: ['string', 'null'] } },
          },
        },
      },
      async handle({ req, query, principal }) {
        const page = await listApprovals(deps.db, principal!.userId, query);
        const context = viewContext(req, principal);
        return { status: 200, body: { approvals: page.approvals.map((approval) => approvalView(approval, context)), next: page.next } };
      },
    }),
    defineRoute<unknown, { wait: number }>({
      method: 'get',
      path: '/approval/:id',
      summary: 'One approval, with its channel dispatches; `?wait=<seconds>` holds until it is answered or expired',
      tag: 'approvals',
      auth: { kind: 'scope', scope: 'read' },
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { wait: { type: 'integer', minimum: 0, maximum: settings.maxWaitSeconds, default: 0 } },
      },
      responses: {
        200: { description: 'The approval as it stands (still unanswered if the wait ended first)', schema: approvalSchema },
        403: { description: "Another user's approval" },
        404: { description: 'No such approval' },
      },
      async handle({ req, res, params, query, principal }) {
        const found = await loadOwnedApproval(deps, principal, params.id!);
        const approval = await waitForSettled(deps, res, found, query.wait);
        return { status: 200, body: approvalView(approval, viewContext(req, principal), await getDispatches(deps.db, approval.id)) };
      },
    }),
    defineRoute<AnswerBody | Record<string, unknown>, { choice?: string }>({
      method: 'post',
      path: '/approval/:ref/answer',
      summary: 'Answer an approval: by id with an API key, or by signed token (public link)',
      description:
        'With an approval id (`apr_…`) this needs a key with the `approvals:answer` scope and a JSON body `{choice, note?}`: ' +
        'the first answer is 200, any later one 409, an expired approval 410, a choice outside the options 400 ' +
        '(options compare ignoring case). ' +
        ANSWER_PAGE_DESCRIPTION,
      tag: 'approvals',
      auth: { kind: 'scope', scope: 'approvals:answer', publicWhen: (req) => !isId('apr', String(req.params.ref ?? '')) },
      body: {
        documentOnly: true,
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            choice: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.optionChars },
            note: { type: 'string', maxLength: APPROVAL_LIMITS.noteChars },
          },
        },
      },
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { choice: { type: 'string', maxLength: APPROVAL_LIMITS.optionChars } },
      },
      responses: {
        200: { description: 'Recorded: this answer won', schema: answeredSchema },
        400: { description: 'Not one of the options, or a malformed body' },
        403: { description: "Another user's approval, or a key without approvals:answer" },
        404: { description: 'No such approval, or a token that is not valid' },
        409: { description: 'Already answered' },
        410: { description: 'Expired' },
      },
      async handle(input) {
        const { req, params, principal } = input;
        if (!isId('apr', params.ref!)) return answerByToken(deps, input);
        const body = parseAnswerBody(req.body);
        const approval = await loadOwnedApproval(deps, principal, params.ref!);
        const outcome = await answerApproval(deps, approval, { choice: body.choice, note: body.note ?? null, via: 'api' });
        return { status: 200, body: { id: approval.id, ...outcome } };
      },
    }),
  ];
}

/** The id form's body, checked here because the token form of the same path also takes forms. */
function parseAnswerBody(body: unknown): AnswerBody {
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
