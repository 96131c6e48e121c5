// A tool call whose policy is `ask` (bundle `toolPolicies`, core/tool-policies.ts): the service's own
// question becomes an approval child of the turn, over the agent's user channels like ask_my_user's; an
// approval runs the tool's activity (at least once: a worker that dies after the tool acted runs it again,
// with the same idempotency key), a denial or no answer tells the model it did not run. The approval takes
// one answer only (workflows/approval.ts), so two channels answering at once do not run it twice.
import { TOOL_APPROVAL_OPTIONS, deniedToolText, staleApprovalQuestion, staleToolText, unansweredToolText } from '../core/tool-policies.ts';

/** Times a call is asked about at most when its approvals keep growing older than validForMs before it runs. */
const STALE_ASKS = 3;
import type { ServiceToolResult, ToolCall, ToolResultPart, TurnInput } from '../core/turn-types.ts';
import { approvalInTurn } from './ask-user.ts';

export async function approvedTool(
  turn: TurnInput,
  call: ToolCall & { approval: NonNullable<ToolCall['approval']> },
  /** Runs the call; `approvedUntil`: past it, the call is not run (`staleApproval`), checked when it is about to. */
  run: (approvedUntil?: string) => Promise<Omit<ServiceToolResult, 'signIn'>>,
): Promise<ToolResultPart> {
  const { toolCallId, toolName } = call;
  const request = {
    question: call.approval.question,
    options: [...TOOL_APPROVAL_OPTIONS],
    expiresInMs: turn.settings.approvals.defaultExpiryMs,
    // A team's policy (`{ask: {approvers, ...}}`), as the step recorded it: its approvers decide.
    ...(call.approval.team ? { team: { quorum: 1 as const, ...call.approval.team } } : {}),
  };
  const validForMs = call.approval.validForMs;
  for (let asked = request, round = 1; ; round += 1) {
    const outcome = await approvalInTurn(turn, toolCallId, asked, `the policy of the tool ${toolName}`);
    if (outcome.status === 'answered' && outcome.choice === TOOL_APPROVAL_OPTIONS[0]) {
      // A decision has a validity (`validForMs`): one that has grown older than that by the time the call is
      // about to run is asked again. Checked twice: here, when the turn takes it up (it was held up: a worker
      // outage, say), in workflow time so a replay decides the same; and by the call's activity once it has
      // its place among its user's running turns (that wait can be long), which answers `staleApproval`
      // without running. The tool still runs once, with the key it always has.
      const age = Date.now() - Date.parse(outcome.answeredAt);
      if (validForMs === undefined) return run();
      if (age <= validForMs) {
        const { staleApproval, ...result } = await run(new Date(Date.parse(outcome.answeredAt) + validForMs).toISOString());
        if (!staleApproval) return result;
      }
      // Asked a few times at most: approvals that keep going stale (a turn held up again and again, or clocks
      // apart by more than validForMs) end in a tool error, not in questions without end.
      if (round >= STALE_ASKS)
        return { type: 'tool-result', toolCallId, toolName, output: staleToolText(toolName, STALE_ASKS), isError: true };
      asked = { ...request, question: staleApprovalQuestion(request.question, outcome.answeredAt, validForMs) };
      continue;
    }
    const output = outcome.status === 'answered' ? deniedToolText(toolName, outcome.note) : unansweredToolText(toolName);
    return { type: 'tool-result', toolCallId, toolName, output, isError: true };
  }
}
