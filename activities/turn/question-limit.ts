// The user's open questions counted, when a step's calls would ask one more (core/question-limit.ts
// decides what happens past OPEN_APPROVALS_PER_USER).
import type { Db } from '../../store/db.ts';
import { countOpenApprovals } from '../../store/user-holdings.ts';
import type { ToolCall } from '../../core/turn-types.ts';
import { asksItsUser, questionsWithin } from '../../core/question-limit.ts';

export async function withinQuestionLimit(db: Db, userId: string, limit: number, calls: ToolCall[]): Promise<ToolCall[]> {
  if (!calls.some(asksItsUser)) return calls;
  return questionsWithin(calls, await countOpenApprovals(db, userId), limit);
}
