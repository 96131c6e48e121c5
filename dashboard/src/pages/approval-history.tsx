// Questions already decided: the answer and its note (and, for a team's, whose vote decided it), or that
// it expired unanswered. Each question links to its page (approval.tsx): the votes, where it was sent.
import type { ApprovalView } from '@agent-service/sdk';
import { Link } from '../router.tsx';
import { EmptyState } from '../ui/states.tsx';
import { When } from '../ui/when.tsx';
import { approverName } from './approval-team.tsx';

export function ApprovalHistory({ approvals, names }: { approvals: ApprovalView[]; names: Map<string, string> }) {
  if (approvals.length === 0) {
    return (
      <EmptyState title="No answered or expired question yet.">
        <p>Questions move here once they are answered (here, by a link, a chat reply or the CLI) or expire.</p>
      </EmptyState>
    );
  }
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Question</th>
          <th scope="col">Outcome</th>
          <th scope="col">Note</th>
          <th scope="col">Agent</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {approvals.map((approval) => (
          <tr key={approval.id}>
            <td>
              <Link to={`/approvals/${approval.id}`}>{approval.question}</Link>
            </td>
            <td>
              {approval.status === 'answered' ? <span class="badge ok">{approval.choice}</span> : <span class="badge muted">expired</span>}
              {approval.decidedBy && <span class="muted-label"> by {approverName(approval.decidedBy)}</span>}
            </td>
            <td>{approval.note ?? ''}</td>
            <td>
              {approval.agentId ? (names.get(approval.agentId) ?? approval.agentId) : 'API'}
              {approval.sessionId && (
                <>
                  {' · '}
                  <Link to={`/sessions/${approval.sessionId}`}>session</Link>
                </>
              )}
            </td>
            <td>
              <When iso={approval.answeredAt ?? approval.expiredAt ?? approval.createdAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
