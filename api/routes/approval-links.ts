// The public answer links: `/approval/<token>/answer?choice=<option>`, signed (lib/approval-token.ts)
// and sent to people over their channels. A person's click (a user-activated navigation) answers in one
// click; anything else (HEAD, link previews, mail scanners, scripts) only ever sees the page, whose
// button answers with POST.
// Pages are HTML for browsers and JSON for clients that ask for it; the status codes are the same.
import type { Request, Response } from 'express';
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute, type HandlerInput, type Reply } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { verifyApprovalLink } from '../../lib/approval-token.ts';
import { isLinkPreviewFetcher } from '../approvals/link-preview.ts';
import { APPROVAL_LIMITS, matchOption } from '../../lib/workflow-safe/approvals.ts';
import { getApproval, type Approval } from '../../store/approvals.ts';
import { ConflictError, ForbiddenError, GoneError, NotFoundError, ServiceError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { answerApproval } from '../approvals/workflows.ts';
import { answeredPage, expiredPage, invalidChoicePage, notCountedPage, notFoundPage, questionPage, votedPage } from '../approvals/pages.ts';
import { isClick, ONWARD_FORM_HEADERS, PAGE_HEADERS, sendPage, wantsHtml } from '../html-pages.ts';
import { connectPage } from '../approvals/pages.ts';
import { notConnectedPage } from '../mcp-oauth/pages.ts';
import { signInsOf } from '../mcp-oauth/sign-in.ts';
import { getMcpServer } from '../../store/mcp-servers.ts';
import { publicBaseUrl } from '../public-url.ts';
import { seatsOf } from '../../store/approval-votes.ts';
import { standingText } from '../../lib/workflow-safe/approval-quorum.ts';
import { ME } from '../../contract/approvals.ts';

/** The approval a token names, with the seat its links answer as (null: the approval's own token). */
async function approvalOfToken(deps: ApiDeps, token: string): Promise<(Approval & { seat: number | null }) | undefined> {
  const link = verifyApprovalLink(deps.masterKeys, token);
  const approval = link ? await getApproval(deps.db, link.approvalId) : undefined;
  return approval && { ...approval, seat: link!.seat };
}

/** A team's question: where it stands, and whom this link answers as (its seat, or the approval's user). */
async function teamStanding(deps: ApiDeps, approval: Approval & { seat: number | null }) {
  if (!approval.team) return undefined;
  const seats = await seatsOf(deps.db, approval.id);
  const as = approval.seat === null ? ME : (seats.find((seat) => seat.position === approval.seat)?.name ?? '?');
  return { standing: standingText(approval.team, approval.options, seats), as };
}

/** Renders the outcome of answering by link: a page for browsers, JSON (or problem+json) otherwise. */
async function answerAndShow(
  deps: ApiDeps,
  req: Request,
  res: Response,
  approval: Approval & { seat: number | null },
  choice: string,
  note: string | null,
) {
  const actionUrl = req.originalUrl.split('?')[0]!;
  try {
    const taken = await answerApproval(deps, approval, { choice, note, via: 'link' }, { seat: approval.seat });
    const status = taken.status === 'answered' ? 200 : 202;
    if (!wantsHtml(req)) return { status, body: { id: approval.id, ...taken } } satisfies Reply;
    return sendPage(res, status, taken.status === 'answered' ? answeredPage(approval, taken.choice, true) : votedPage(approval, taken));
  } catch (error) {
    if (!(error instanceof ServiceError) || !wantsHtml(req)) throw error;
    const current = (await getApproval(deps.db, approval.id)) ?? approval;
    // This approver voted already, or the link answers as nobody who may: the approval is still open.
    if (error instanceof ConflictError && current.status === 'unanswered')
      return sendPage(res, 409, notCountedPage(current, error.message));
    if (error instanceof ForbiddenError) return sendPage(res, 403, notCountedPage(current, error.message));
    if (error instanceof ConflictError) return sendPage(res, 409, answeredPage(current, current.choice ?? '', false));
    if (error instanceof GoneError) return sendPage(res, 410, expiredPage(current));
    if (error instanceof ValidationError) return sendPage(res, 400, invalidChoicePage(current, actionUrl, choice));
    throw error;
  }
}

function notFound(req: Request, res: Response): undefined {
  if (wantsHtml(req)) return sendPage(res, 404, notFoundPage());
  throw new NotFoundError('No approval has this id or answer link');
}

function bodyField(body: unknown, field: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

/** POST /approval/<token>/answer: always records (a person pressed a button, or a client posted). */
export async function answerByToken(deps: ApiDeps, input: HandlerInput<unknown, { choice?: string }>): Promise<Reply | undefined> {
  const { req, res, params, query } = input;
  const approval = await approvalOfToken(deps, params.ref!);
  if (!approval) return notFound(req, res);
  if (approval.connectServer && approval.status === 'unanswered') return startConnecting(deps, req, res, approval);
  const choice = bodyField(req.body, 'choice') ?? query.choice;
  // Cut at a whole character: half of a surrogate pair could not be stored.
  const note =
    bodyField(req.body, 'note')
      ?.trim()
      .slice(0, APPROVAL_LIMITS.noteChars)
      .replace(/[\uD800-\uDBFF]$/, '') || null;
  if (!choice) {
    if (wantsHtml(req)) return sendPage(res, 400, invalidChoicePage(approval, req.originalUrl.split('?')[0]!, ''));
    throw new ValidationError('Give a choice', [{ path: '/choice', message: 'is required' }]);
  }
  return answerAndShow(deps, req, res, approval, choice, note);
}

/**
 * A connect approval's link, clicked or its button pressed: the sign-in to its server starts, for the
 * approval's user, and the browser goes on to the authorization server. Its callback answers the approval
 * (and any other of the user's that waits on the same server).
 */
async function startConnecting(deps: ApiDeps, req: Request, res: Response, approval: Approval): Promise<undefined> {
  const server = await getMcpServer(deps.db, approval.userId, approval.connectServer!);
  if (!server) {
    return sendPage(
      res,
      404,
      notConnectedPage(`The MCP server "${approval.connectServer}" is no longer registered, so it cannot be signed in to.`),
    );
  }
  try {
    const started = await signInsOf(deps).start(approval.userId, server, publicBaseUrl(deps.config, req));
    res.status(303).set(PAGE_HEADERS).location(started.authorizationUrl).end();
    return undefined;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return sendPage(res, error.status, notConnectedPage(error.message));
  }
}

export function approvalLinkRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.openAnswerLink, {
      async handle({ req, res, params, query }) {
        const approval = await approvalOfToken(deps, params.ref!);
        if (!approval) return notFound(req, res);
        const actionUrl = req.originalUrl.split('?')[0]!;
        const person = req.method === 'GET' && isClick(req) && !isLinkPreviewFetcher(req.get('user-agent'));
        // A question that asks its user to sign in: a click starts the sign-in; anything else sees its button.
        if (approval.connectServer && approval.status === 'unanswered') {
          return person
            ? startConnecting(deps, req, res, approval)
            : sendPage(res, 200, connectPage(approval, actionUrl), ONWARD_FORM_HEADERS);
        }
        if (query.choice && person) return answerAndShow(deps, req, res, approval, query.choice, null);
        // Looking is not answering: the page shows the state and, if still open, the buttons.
        if (approval.status === 'answered') return sendPage(res, 200, answeredPage(approval, approval.choice ?? '', false));
        if (approval.status === 'expired') return sendPage(res, 200, expiredPage(approval));
        const preselected = query.choice ? matchOption(approval.options, query.choice) : undefined;
        return sendPage(res, 200, questionPage(approval, actionUrl, preselected, await teamStanding(deps, approval)));
      },
    }),
  ];
}
