// The built-in `ask_my_user` tool every agent has: what the model is told about it. The turn
// workflow runs it as a child approval workflow (workflows/turn.ts), so this file stays pure.
import { APPROVAL_QUESTION_PROPERTIES, TEAM_LIMITS } from '../../contract/approvals.ts';
import type { JsonObject } from '../../contract/bundle.ts';

export const ASK_MY_USER = 'ask_my_user';

export const askMyUserDescription =
  'Ask your user a question and wait for the answer, which may come minutes or days later over their ' +
  'channels (chat, email, a link). The user sees only this question, not the conversation, so it must carry ' +
  'all the context needed to decide without asking you again: what you are about to do and why, what each ' +
  'option leads to, and any amounts, names or dates involved. Offer short options (default: yes, no). ' +
  'Returns {choice, note} with the chosen option and the user\'s optional note, or {status: "expired"} ' +
  'when no answer came in time; then do not act as if they had agreed.';

export const askMyUserInputSchema: JsonObject = {
  type: 'object',
  required: ['question'],
  additionalProperties: false,
  properties: {
    question: { ...APPROVAL_QUESTION_PROPERTIES.question, description: 'The full-context question, readable on its own.' },
    options: {
      ...APPROVAL_QUESTION_PROPERTIES.options,
      description: 'The answers the user can choose from, e.g. ["approve", "reject"]. Default: ["yes", "no"].',
    },
    expiresInMs: {
      ...APPROVAL_QUESTION_PROPERTIES.expiresInMs,
      description: 'How long to wait for the answer, in milliseconds. Default: 7 days.',
    },
    approvers: {
      type: 'array',
      minItems: 1,
      maxItems: TEAM_LIMITS.approvers,
      items: { type: 'string', minLength: 1, maxLength: 80 },
      description:
        'Only when your instructions name who must decide: names from your user\'s approver directory ("me" is your ' +
        'user, "group:<name>" a group). Each is asked at their own address. Without it, your user answers.',
    },
    quorum: {
      oneOf: [
        { type: 'integer', minimum: 1, maximum: TEAM_LIMITS.seats },
        { type: 'string', enum: ['all'] },
      ],
      description: 'With approvers: how many must choose the same option to decide it ("all": every one). Default: 1.',
    },
    denyWins: {
      type: 'boolean',
      description:
        'With approvers: one vote for the refusing option (deny, no, reject, decline) decides at once. Default: true when quorum > 1.',
    },
  },
};
