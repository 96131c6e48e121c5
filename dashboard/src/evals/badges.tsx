// The status of an eval run or case as a badge: green for passed or completed, red for what failed,
// amber while it runs, grey for what never ended (pending, cancelled).
import type { EvalRunView } from '@agent-service/sdk';

type RunStatus = EvalRunView['status'];
type CaseStatus = EvalRunView['cases'][number]['status'];

const CLASS: Record<RunStatus | CaseStatus, string> = {
  completed: 'badge ok',
  passed: 'badge ok',
  failed: 'badge bad',
  error: 'badge bad',
  running: 'badge warn',
  pending: 'badge muted',
  cancelled: 'badge muted',
};

export function StatusBadge({ status }: { status: RunStatus | CaseStatus }) {
  return <span class={CLASS[status]}>{status}</span>;
}

/** "2 of 3 passed (67%)": the share a CI gate's --min-score compares with. */
export function passedText(summary: EvalRunView['summary']): string {
  const percent = summary.cases === 0 ? 0 : Math.round((summary.passed / summary.cases) * 100);
  return `${summary.passed} of ${summary.cases} passed (${percent}%)`;
}
