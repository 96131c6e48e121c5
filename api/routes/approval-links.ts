// The public answer links: `/approval/<token>/answer?choice=<option>`, signed (lib/approval-token.ts)
// and sent to people over their channels. A person's click (a user-activated navigation) answers in one
// click; anything else (HEAD, link previews, mail scanners, scripts) only ever sees the page, whose
// button answers with POST. An approver's own link (a seat's) also offers a second form, which hands their
// vote to another approver of the directory: a POST too, so nothing that only fetches the link changes it.
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
import {
  answeredPage,
  expiredPage,
  handedOnPage,
  invalidChoicePage,
  notCountedPage,
  notFoundPage,
  notHandedPage,
  questionPage,
  votedPage,
} from '../approvals/pages.ts';
import { isClick, ONWARD_FORM_HEADERS, PAGE_HEADERS, sendPage, wantsHtml } from '../html-pages.ts';
import { connectPage } from '../approvals/pages.ts';
import { notConnectedPage } from '../mcp-oauth/pages.ts';
import { signInsOf } from '../mcp-oauth/sign-in.ts';
import { getMcpServer } from '../../store/mcp-servers.ts';
import { publicBaseUrl } from '../public-url.ts';
import { seatsOf, type Delegation } from '../../store/approval-votes.ts';
import { standingText } from '../../lib/workflow-safe/approval-quorum.ts';
import { APPROVER_NAME, ME } from '../../contract/approvals.ts';
import { delegationRefusal, handOnVote } from '../approvals/delegation.ts';

/** The approval a token names, with the seat its links answer as (null: the approval's own token). */
async function approvalOfToken(deps: ApiDeps, token: string): Promise<(Approval & { seat: number | null }) | undefined> {
  const link = verifyApprovalLink(deps.masterKeys, token);
  const approval = link ? await getApproval(deps.db, link.approvalId) : undefined;
  return approval && { ...approval, seat: link!.seat };
}

/** A team's question: where it stands, whom this link answers as (its seat, or the approval's user), and that seat. */
async function teamStanding(deps: ApiDeps, approval: Approval & { seat: number | null }) {
  if (!approval.team) return undefined;
  const seats = await seatsOf(deps.db, approval.id);
  const seat = approval.seat === null ? undefined : seats.find((candidate) => candidate.position === approval.seat);
  const as = approval.seat === null ? ME : (seat?.name ?? '?');
  return { standing: standingText(approval.team, approval.options, seats), as, seat };
}

/** Where an answer page's second form hands its approver's vote on: beside the page, under its path. */
function handOnUrlOf(answerUrl: string): string {
  return answerUrl.replace(/\/?$/, '/delegate');
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
        const team = await teamStanding(deps, approval);
        // An approver who handed their vote on: their link says to whom, and offers no vote.
        if (team?.seat?.delegatedTo) return sendPage(res, 200, handedOnPage(approval, team.seat.delegatedTo, false));
        const handOnUrl = team?.seat && !team.seat.vote ? handOnUrlOf(actionUrl) : undefined;
        const shown = team && { standing: team.standing, as: team.as, ...(handOnUrl ? { handOnUrl } : {}) };
        return sendPage(res, 200, questionPage(approval, actionUrl, preselected, shown));
      },
    }),
    defineRoute(OPERATIONS.delegateByLink, {
      // A form's name is read as typed (a page, not a client): the handler checks it and answers with a page.
      bodyCheckedByHandler: true,
      handle: (input) => delegateByToken(deps, input),
    }),
  ];
}

/**
 * POST /approval/<token>/answer/delegate: the approver an approver's link names hands their vote to another
 * approver of the directory, as the approval's user can by key. Only a POST acts, as for an answer (a
 * prefetched link never hands anything on), and only a seat's link: the approval's own token votes as its user.
 */
async function delegateByToken(deps: ApiDeps, { req, res, params }: HandlerInput<unknown, unknown>): Promise<Reply | undefined> {
  const approval = await approvalOfToken(deps, params.token!);
  if (!approval) return notFound(req, res);
  const formUrl = req.originalUrl.split('?')[0]!;
  const refuse = (error: ServiceError, current: Approval): undefined => {
    if (!wantsHtml(req)) throw error;
    return sendPage(res, error.status, notHandedPage(current, error.message, error instanceof ValidationError ? formUrl : undefined));
  };
  const seats = approval.team && approval.seat !== null ? await seatsOf(deps.db, approval.id) : [];
  const seat = seats.find((candidate) => candidate.position === approval.seat);
  if (!seat) {
    const why =
      approval.seat === null
        ? "This is the approval's own link: only an approver's own link hands their vote on"
        : 'This link answers as no approver of this approval';
    return refuse(new ForbiddenError(why), approval);
  }
  // Directory names are lower case (APPROVER_NAME); a person may type one otherwise.
  const to = bodyField(req.body, 'to')?.trim().toLowerCase() ?? '';
  if (!to && approval.status === 'unanswered') {
    return refuse(
      new ValidationError('Give the name of the approver who votes in your place', [{ path: '/to', message: 'is required' }]),
      approval,
    );
  }
  const names = { from: seat.name, to };
  const handed: Delegation =
    approval.status !== 'unanswered'
      ? { kind: 'closed', approval }
      : APPROVER_NAME.test(to)
        ? await handOnVote(deps, approval, names)
        : { kind: 'unknown', approval };
  if (handed.kind === 'delegated-now') {
    if (!wantsHtml(req)) return { status: 200, body: { id: approval.id, ...names } };
    return sendPage(res, 200, handedOnPage(approval, to, true));
  }
  const current = handed.approval;
  if (handed.kind === 'closed' && wantsHtml(req)) {
    return current.status === 'answered'
      ? sendPage(res, 409, answeredPage(current, current.choice ?? '', false))
      : sendPage(res, 410, expiredPage(current));
  }
  return refuse(delegationRefusal(handed, names, 'link'), current);
}
