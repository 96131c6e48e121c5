// How an approval is shown to its owner, and the JSON Schema of that view in /openapi.json. The
// token and links answer it without a key, so only a key that may answer (approvals:answer) sees
// them; a read-only key would otherwise hold an answer it was not granted.
import type { Approval, Dispatch } from '../../store/approvals.ts';
import type { MasterKey } from '../../lib/master-key.ts';
import { approvalLinks, approvalToken } from '../../lib/approval-token.ts';
import { ANSWER_VIAS } from '../../contract/approvals.ts';

export function approvalView(
  approval: Approval,
  context: { masterKey: MasterKey; baseUrl: string; mayAnswer: boolean },
  dispatches?: Dispatch[],
) {
  const token = approvalToken(context.masterKey, approval.id);
  const answering = context.mayAnswer ? { token, links: approvalLinks(context.baseUrl, token, approval.options) } : {};
  return {
    id: approval.id,
    status: approval.status,
    question: approval.question,
    options: approval.options,
    choice: approval.choice,
    note: approval.note,
    answeredVia: approval.answeredVia,
    source: approval.source,
    agentId: approval.agentId,
    sessionId: approval.sessionId,
    turnId: approval.turnId,
    toolCallId: approval.toolCallId,
    createdAt: approval.createdAt.toISOString(),
    expiresAt: approval.expiresAt.toISOString(),
    answeredAt: approval.answeredAt?.toISOString() ?? null,
    expiredAt: approval.expiredAt?.toISOString() ?? null,
    ...answering,
    ...(dispatches
      ? {
          dispatches: dispatches.map((dispatch) => ({
            position: dispatch.position,
            provider: dispatch.provider,
            answerVia: dispatch.answerVia,
            status: dispatch.status,
            attempts: dispatch.attempts,
            error: dispatch.error,
            updatedAt: dispatch.updatedAt.toISOString(),
          })),
        }
      : {}),
  };
}

const nullableString = { type: ['string', 'null'] };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };

export const linksSchema = {
  type: 'object',
  required: ['page', 'options'],
  properties: {
    page: { type: 'string', description: 'The answer page: the question with a button per option' },
    options: {
      type: 'array',
      description: 'One one-click link per option, in order',
      items: { type: 'object', required: ['option', 'url'], properties: { option: { type: 'string' }, url: { type: 'string' } } },
    },
  },
};

export const approvalSchema = {
  type: 'object',
  required: ['id', 'status', 'question', 'options', 'createdAt', 'expiresAt'],
  properties: {
    id: { type: 'string' },
    status: { enum: ['unanswered', 'answered', 'expired'] },
    question: { type: 'string' },
    options: { type: 'array', items: { type: 'string' } },
    choice: nullableString,
    note: nullableString,
    answeredVia: { type: ['string', 'null'], enum: [...ANSWER_VIAS, null] },
    source: { enum: ['tool', 'workflow', 'api'] },
    agentId: nullableString,
    sessionId: nullableString,
    turnId: nullableString,
    toolCallId: nullableString,
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
    answeredAt: nullableTime,
    expiredAt: nullableTime,
    token: {
      type: 'string',
      description:
        'Signed token of the public answer links; it answers this approval, keep it private. Only for keys with approvals:answer',
    },
    links: { ...linksSchema, description: 'The answer page and one one-click link per option. Only for keys with approvals:answer' },
    dispatches: {
      type: 'array',
      description: 'One per channel of the asking agent, in declared order (GET /approval/<id> only)',
      items: {
        type: 'object',
        properties: {
          position: { type: 'integer' },
          provider: { type: 'string' },
          answerVia: { enum: ['reply', 'signed-url'] },
          status: { enum: ['pending', 'sent', 'failed', 'skipped'] },
          attempts: { type: 'integer' },
          error: nullableString,
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
};
