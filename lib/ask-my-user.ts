// The built-in `ask_my_user` tool every agent has: what the model is told about it. The turn
// workflow runs it as a child approval workflow (workflows/turn.ts), so this file stays pure.
import { APPROVAL_LIMITS } from './approvals.ts';
import type { JsonObject } from '../contract/bundle.ts';

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
    question: {
      type: 'string',
      minLength: 1,
      maxLength: APPROVAL_LIMITS.questionChars,
      description: 'The full-context question, readable on its own.',
    },
    options: {
      type: 'array',
      minItems: 1,
      maxItems: APPROVAL_LIMITS.options,
      items: { type: 'string', minLength: 1, maxLength: APPROVAL_LIMITS.optionChars },
      description: 'The answers the user can choose from, e.g. ["approve", "reject"]. Default: ["yes", "no"].',
    },
    expiresInMs: {
      type: 'integer',
      minimum: APPROVAL_LIMITS.minExpiryMs,
      description: 'How long to wait for the answer, in milliseconds. Default: 7 days.',
    },
  },
};
