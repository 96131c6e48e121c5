// The approvers directory: /approver/<name> and /approver-group/<name>. The body's shape is checked by
// the operation's schema; what a schema cannot say (reserved names, a webhook URL the outbound guard
// refuses, members that are not approvers) is checked here, each a 400 pointing at its place. Another
// user's names are simply not found: the directory is per user.
import { OPERATIONS } from '../../contract/operations/index.ts';
import { APPROVER_NAME, GROUP_PREFIX, ME } from '../../contract/approvals.ts';
import {
  MAX_APPROVER_GROUPS_PER_USER,
  MAX_APPROVERS_PER_USER,
  type ApproverGroupView,
  type ApproverView,
  type PutApproverBody,
} from '../../contract/operations/approvers.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/workflow-safe/errors.ts';
import { createOutboundClient, OutboundRequestError, type OutboundClient } from '../../lib/outbound.ts';
import {
  deleteApprover,
  deleteApproverGroup,
  getApprover,
  getApproverGroup,
  listApproverGroups,
  listApprovers,
  putApprover,
  putApproverGroup,
  type Approver,
  type ApproverAddresses,
  type ApproverGroup,
} from '../../store/approvers.ts';
import type { ApiDeps } from '../context.ts';
import { defineRoute } from '../route.ts';

/** The name from the path of a write: well formed and not reserved. */
function checkedName(name: string, what: 'approver' | 'group'): string {
  if (name === ME || name.startsWith(GROUP_PREFIX)) {
    throw new ValidationError(
      `"${name}" is reserved: an approval names its own user "${ME}" and a group "${GROUP_PREFIX}<name>"; choose another`,
    );
  }
  if (!APPROVER_NAME.test(name)) {
    throw new ValidationError(
      `${what === 'approver' ? 'An approver' : 'A group'} name is a lower-case letter or digit, then lower-case letters, digits, "_", "." or "-", at most 63 ` +
        `(${APPROVER_NAME.source})`,
    );
  }
  return name;
}

function addresses(body: PutApproverBody, outbound: OutboundClient): ApproverAddresses {
  let webhookUrl: string | null = null;
  if (body.webhook) {
    try {
      // As written, not normalised: it is what the user will see and recognise.
      outbound.checkUrl(body.webhook.url);
      webhookUrl = body.webhook.url;
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      throw new ValidationError(`The webhook url ${error.message}`, [{ path: '/webhook/url', message: error.message }]);
    }
  }
  return {
    email: body.email ?? null,
    slackUserId: body.slack?.userId ?? null,
    telegramChatId: body.telegram === undefined ? null : String(body.telegram.chatId),
    webhookUrl,
  };
}

function approverView(approver: Approver): ApproverView {
  return {
    name: approver.name,
    ...(approver.email !== null ? { email: approver.email } : {}),
    ...(approver.slackUserId !== null ? { slack: { userId: approver.slackUserId } } : {}),
    ...(approver.telegramChatId !== null ? { telegram: { chatId: approver.telegramChatId } } : {}),
    ...(approver.webhookUrl !== null ? { webhook: { url: approver.webhookUrl } } : {}),
    groups: approver.groups,
    createdAt: approver.createdAt.toISOString(),
    updatedAt: approver.updatedAt.toISOString(),
  };
}

function groupView(group: ApproverGroup): ApproverGroupView {
  return { name: group.name, members: group.members, createdAt: group.createdAt.toISOString(), updatedAt: group.updatedAt.toISOString() };
}

export function approverRoutes(deps: ApiDeps) {
  const outbound = createOutboundClient({ allowCidrs: deps.config.outbound.allowCidrs });
  return [
    defineRoute(OPERATIONS.listApprovers, {
      async handle({ principal }) {
        return { status: 200, body: { approvers: (await listApprovers(deps.db, principal!.userId)).map(approverView) } };
      },
    }),
    defineRoute(OPERATIONS.getApprover, {
      async handle({ params, principal }) {
        const approver = await getApprover(deps.db, principal!.userId, params.name!);
        if (!approver) throw new NotFoundError(`You have no approver named "${params.name}"`);
        return { status: 200, body: approverView(approver) };
      },
    }),
    defineRoute(OPERATIONS.putApprover, {
      async handle({ params, body, principal }) {
        const name = checkedName(params.name!, 'approver');
        const stored = await putApprover(deps.db, principal!.userId, name, addresses(body, outbound), MAX_APPROVERS_PER_USER);
        if (!stored) {
          throw new ConflictError(
            `You have ${MAX_APPROVERS_PER_USER} approvers, the most you may; remove one (DELETE /approver/<name>) first`,
          );
        }
        return { status: stored.created ? 201 : 200, body: approverView(stored) };
      },
    }),
    defineRoute(OPERATIONS.deleteApprover, {
      async handle({ params, principal }) {
        const deleted = await deleteApprover(deps.db, principal!.userId, params.name!);
        if (deleted.outcome === 'missing') throw new NotFoundError(`You have no approver named "${params.name}"`);
        if (deleted.outcome === 'member') {
          const groups = deleted.memberOf.map((group) => `"${group}"`).join(', ');
          throw new ConflictError(
            `"${params.name}" is a member of the group${deleted.memberOf.length === 1 ? '' : 's'} ${groups}; ` +
              'remove it from them (PUT /approver-group/<name>) first',
          );
        }
        return { status: 204 };
      },
    }),
    defineRoute(OPERATIONS.listApproverGroups, {
      async handle({ principal }) {
        return { status: 200, body: { groups: (await listApproverGroups(deps.db, principal!.userId)).map(groupView) } };
      },
    }),
    defineRoute(OPERATIONS.getApproverGroup, {
      async handle({ params, principal }) {
        const group = await getApproverGroup(deps.db, principal!.userId, params.name!);
        if (!group) throw new NotFoundError(`You have no approver group named "${params.name}"`);
        return { status: 200, body: groupView(group) };
      },
    }),
    defineRoute(OPERATIONS.putApproverGroup, {
      async handle({ params, body, principal }) {
        const name = checkedName(params.name!, 'group');
        const stored = await putApproverGroup(deps.db, principal!.userId, name, body.members, MAX_APPROVER_GROUPS_PER_USER);
        switch (stored.outcome) {
          case 'stored':
            return { status: stored.created ? 201 : 200, body: groupView(stored.group) };
          case 'unknown':
            throw new ValidationError(
              `You have no approver named ${stored.unknown.map((member) => `"${member}"`).join(', ')}; add them (PUT /approver/<name>) first`,
              stored.unknown.map((member) => ({
                path: `/members/${body.members.indexOf(member)}`,
                message: 'is not one of your approvers',
              })),
            );
          case 'limit':
            throw new ConflictError(
              `You have ${MAX_APPROVER_GROUPS_PER_USER} approver groups, the most you may; remove one (DELETE /approver-group/<name>) first`,
            );
          default: {
            const unexpected: never = stored;
            throw new Error(`Unexpected outcome ${JSON.stringify(unexpected)}`);
          }
        }
      },
    }),
    defineRoute(OPERATIONS.deleteApproverGroup, {
      async handle({ params, principal }) {
        if (!(await deleteApproverGroup(deps.db, principal!.userId, params.name!))) {
          throw new NotFoundError(`You have no approver group named "${params.name}"`);
        }
        return { status: 204 };
      },
    }),
  ];
}
