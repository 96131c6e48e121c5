// Inbound replies to approvals: `POST /inbound/<provider>`. The provider's parser (api/inbound/)
// reads the raw body and says which approval the reply is about (a thread reference, a signed
// address, an approval id) and how to check it is authentic; here the candidates are found, the
// request is authenticated with the secrets of the channel that sent the question (only a request
// signed for that channel counts), the reply is matched to an option, and the approval answered.
// On an approval a team answers, a chat reply (in the thread of the question on the user's channel, or
// of the message to one approver) is the vote of the approver who wrote it, or of nobody.
// Chat providers (Slack, Telegram) always get 200 for an authentic request, so they do not retry
// a reply that simply named no option; email and webhook replies get the answer's real status.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { defineRoute } from '../route.ts';
import type { ApiDeps } from '../context.ts';
import { inboundParsers } from '../inbound/index.ts';
import type { InboundLookup } from '../inbound/types.ts';
import type { ChannelProvider } from '../../contract/bundle.ts';
import { getRevision } from '../../store/agents.ts';
import { findDispatchesByRef, findDispatchesOfApproval, getApproval, type DispatchMatch } from '../../store/approvals.ts';
import { verifyApprovalToken } from '../../lib/approval-token.ts';
import { resolveChannelConfig } from '../../store/secrets.ts';
import { matchReply } from '../inbound/reply-matching.ts';
import { APPROVAL_LIMITS, numberedOptions } from '../../lib/workflow-safe/approvals.ts';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  UnauthorizedError,
  ValidationError,
} from '../../lib/workflow-safe/errors.ts';
import { answerApproval, noteInThread, type NoticeThread } from '../approvals/workflows.ts';
import { findSeatDispatchesByRef, seatsOf } from '../../store/approval-votes.ts';
import { seatOfReply, type ChatProvider } from '../inbound/team-reply.ts';

function unmatchedNotice(options: readonly string[]): string {
  const numbered = numberedOptions(options).join(', ');
  return `Your reply did not name an option, so nothing was recorded. Reply with one of: ${numbered} (its name or number; anything after it on the same line is kept as a note).`;
}

const PROVIDERS: readonly ChannelProvider[] = ['slack', 'telegram', 'email', 'webhook'];
const CHAT: ReadonlySet<ChannelProvider> = new Set(['slack', 'telegram']);

/**
 * What a reply may answer: a question sent over the user's channel at `position`, or (`seat`) a message
 * sent to one approver of a team, over the agent's first channel of the provider.
 */
type Candidate = DispatchMatch & { seat?: number };

async function candidates(deps: ApiDeps, provider: ChannelProvider, lookup: InboundLookup): Promise<Candidate[]> {
  if (lookup.kind === 'ref') {
    const toApprovers = CHAT.has(provider)
      ? (await findSeatDispatchesByRef(deps.db, provider as ChatProvider, lookup.externalRef)).map(({ seat, ...match }) => ({
          ...match,
          position: -1,
          seat,
        }))
      : [];
    return [...(await findDispatchesByRef(deps.db, provider, lookup.externalRef)), ...toApprovers];
  }
  const approvalId = lookup.kind === 'token' ? verifyApprovalToken(deps.masterKeys, lookup.token) : lookup.approvalId;
  if (!approvalId) throw new UnauthorizedError('The reply address is not a valid approval address');
  return findDispatchesOfApproval(deps.db, approvalId, provider);
}

/** The first candidate whose channel's secrets authenticate the request. */
async function authentic(
  deps: ApiDeps,
  provider: ChannelProvider,
  found: Candidate[],
  authenticate: (config: Record<string, string | number | boolean>) => boolean,
): Promise<Candidate | undefined> {
  for (const match of found) {
    if (match.agentId === null || match.revision === null) continue;
    const revision = await getRevision(deps.db, match.agentId, match.revision);
    const channels = revision?.bundle.userChannels;
    // A message to an approver went over the agent's first channel of its kind (activities/approval-seat-dispatch.ts).
    const channel = match.seat === undefined ? channels?.[match.position] : channels?.find((each) => each.provider === provider);
    if (!revision || !channel) continue;
    try {
      const config = await resolveChannelConfig(
        { db: deps.db, masterKeys: deps.masterKeys },
        {
          userId: match.userId,
          grants: revision.bundle.secretGrants,
          channel,
        },
      );
      if (authenticate(config)) return match;
    } catch {
      // A channel whose secret is gone cannot authenticate anything.
    }
  }
  return undefined;
}

export function inboundRoutes(deps: ApiDeps) {
  return [
    defineRoute(OPERATIONS.receiveInboundReply, {
      bodyCheckedByHandler: true,
      async handle({ req, params }) {
        const provider = params.provider as ChannelProvider;
        if (!PROVIDERS.includes(provider)) throw new NotFoundError(`There is no inbound provider "${params.provider}"`);
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const parsed = inboundParsers[provider].parse({
          rawBody,
          headers: req.headers,
          contentType: req.get('content-type'),
          now: Date.now(),
        });
        if (parsed.kind === 'respond') return { status: parsed.status, body: parsed.body };
        if (parsed.kind === 'invalid') {
          if (parsed.status === 401) throw new UnauthorizedError(parsed.detail);
          throw new ValidationError(parsed.detail, [{ path: '', message: parsed.detail }]);
        }
        const found = await candidates(deps, provider, parsed.lookup);
        const chat = CHAT.has(provider);
        // A chat message in a thread we never started is not ours to judge: acknowledge and ignore.
        if (found.length === 0) {
          if (chat) return { status: 200, body: { ok: true, answered: false, reason: 'not a reply to a question' } };
          throw new NotFoundError(`No question was sent over ${provider} for this reply`);
        }
        const match = await authentic(deps, provider, found, parsed.authenticate);
        if (!match) throw new UnauthorizedError(`The request is not authentic for the ${provider} channel it replies to`);
        const approval = (await getApproval(deps.db, match.approvalId))!;
        if ((parsed.note?.length ?? 0) > APPROVAL_LIMITS.noteChars) {
          const detail = `The note is longer than ${APPROVAL_LIMITS.noteChars} characters`;
          throw new ValidationError(detail, [{ path: '/note', message: detail }]);
        }
        const thread: NoticeThread =
          match.seat === undefined || parsed.lookup.kind !== 'ref'
            ? match.position
            : { seat: match.seat, provider: provider as ChatProvider, externalRef: parsed.lookup.externalRef };
        // An approval a team answers: a chat reply votes only as the approver it comes from (api/inbound/team-reply.ts).
        let seat: number | undefined;
        if (approval.team) {
          if (!chat) throw new ForbiddenError('This question is answered by several approvers: vote with your own link, not a reply');
          const voter = seatOfReply(await seatsOf(deps.db, approval.id), provider as ChatProvider, parsed.sender, match.seat);
          if (!voter) {
            const reason = 'Only an approver this question was sent to can answer it by a reply here; nothing was recorded';
            await noteInThread(deps, approval, thread, reason);
            return { status: 200, body: { ok: true, answered: false, approvalId: approval.id, reason } };
          }
          seat = voter.position;
        }
        const answer =
          parsed.choice !== undefined
            ? { choice: parsed.choice, note: parsed.note ?? null }
            : matchReply(approval.options, parsed.text ?? '');
        if (!answer) {
          const reason = `the reply names none of the options: ${approval.options.join(', ')}`;
          if (!chat) throw new ValidationError(`The reply names none of the options`, [{ path: '', message: reason }]);
          // Said in the thread too: whoever replied sees at once that nothing was recorded.
          await noteInThread(deps, approval, thread, unmatchedNotice(approval.options));
          return { status: 200, body: { ok: true, answered: false, approvalId: approval.id, reason } };
        }
        try {
          const taken = await answerApproval(deps, approval, { ...answer, via: provider }, { seat: seat ?? null });
          return { status: 200, body: { ok: true, answered: taken.status === 'answered', approvalId: approval.id, ...taken } };
        } catch (error) {
          const refused =
            error instanceof ConflictError ||
            error instanceof GoneError ||
            error instanceof ValidationError ||
            error instanceof ForbiddenError;
          if (chat && refused) {
            await noteInThread(deps, approval, thread, error.message);
            return { status: 200, body: { ok: true, answered: false, approvalId: approval.id, reason: error.message } };
          }
          throw error;
        }
      },
    }),
  ];
}
