// A model's questions to its user count toward OPEN_APPROVALS_PER_USER like the API's: each is an
// approval workflow that may wait for weeks. Past the limit an ask_my_user call becomes a tool error
// the model reads (the turn goes on without asking), rather than one more workflow; so does a call
// whose tool's policy asks first (bundle `toolPolicies`), which then does not run.
import { ASK_MY_USER } from '../../lib/ask-my-user.ts';
import type { Db } from '../../store/db.ts';
import { countOpenApprovals } from '../../store/user-holdings.ts';
import type { ToolCall } from '../../core/turn-types.ts';

export async function withinQuestionLimit(db: Db, userId: string, limit: number, calls: ToolCall[]): Promise<ToolCall[]> {
  const asks = (call: ToolCall) => (call.toolName === ASK_MY_USER || call.approval !== undefined) && call.inputError === undefined;
  if (!calls.some(asks)) return calls;
  const open = await countOpenApprovals(db, userId);
  let room = limit - open;
  return calls.map((call) => {
    if (!asks(call) || room-- > 0) return call;
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
