// A model's questions to its user count toward OPEN_APPROVALS_PER_USER like the API's: each is an
// approval workflow that may wait for weeks. Past the limit an ask_my_user call becomes a tool error
// the model reads (the turn goes on without asking), rather than one more workflow; so does a call
// whose tool's policy asks first (bundle `toolPolicies`), which then does not run. Pure: the step
// (activities/turn/question-limit.ts) counts the open questions when a call would ask one.
import { ASK_MY_USER } from '../lib/workflow-safe/ask-my-user.ts';
import type { ToolCall } from './turn-types.ts';

/** A call that would ask the user: ask_my_user, or a tool whose policy asks first, with valid input. */
export function asksItsUser(call: ToolCall): boolean {
  return (call.toolName === ASK_MY_USER || call.approval !== undefined) && call.inputError === undefined;
}

/** The calls, those that would ask past the limit (in order) turned into tool errors that say why. */
export function questionsWithin(calls: readonly ToolCall[], open: number, limit: number): ToolCall[] {
  let room = limit - open;
  return calls.map((call) => {
    if (!asksItsUser(call) || room-- > 0) return call;
    const { approval: _approval, ...unasked } = call;
    if (call.approval) {
      return {
        ...unasked,
        inputError:
          `This tool runs only once your user approves it, and your user already has ${open} unanswered questions, the most ` +
          `it may (OPEN_APPROVALS_PER_USER is ${limit}); the approval was not asked and the tool did not run.`,
      };
    }
    return {
      ...call,
      inputError:
        `Your user already has ${open} unanswered questions, the most it may (OPEN_APPROVALS_PER_USER is ${limit}); ` +
        'this question was not sent. Go on without the answer, or ask again once earlier questions are answered.',
    };
  });
}
