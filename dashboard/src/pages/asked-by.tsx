// Who asked an approval, and where: its agent (linked when its name is known) or a script, and its session.
// Shared by the waiting card and a decided approval's page.
import type { ApprovalView } from '@agent-service/sdk';
import { Link } from '../router.tsx';

export function AskedBy({ approval, agentName }: { approval: ApprovalView; agentName: string | undefined }) {
  return (
    <>
      {approval.agentId ? (
        agentName ? (
          <Link to={`/agents/${encodeURIComponent(agentName)}`}>{agentName}</Link>
        ) : (
          <code>{approval.agentId}</code>
        )
      ) : (
        'a script (API)'
      )}
      {approval.sessionId && (
        <>
          {' in '}
          <Link to={`/sessions/${approval.sessionId}`}>session {approval.sessionId}</Link>
        </>
      )}
    </>
  );
}
