// The approvals inbox: questions waiting for an answer first (soonest to expire on top), then the
// history of answered and expired ones. Refreshed every few seconds, so a new question appears (and a
// team's question its new votes: those waiting are read whole, since a listed approval has no approvers).
import type { ApprovalView, Client } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { agentNames } from '../ui/agent-names.ts';
import { EmptyState, LoadedView } from '../ui/states.tsx';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { ApprovalCard } from './approval-card.tsx';
import { ApprovalHistory } from './approval-history.tsx';

const REFRESH_MS = 5000;
const HISTORY_SIZE = 50;

interface Inbox {
  waiting: ApprovalView[];
  history: ApprovalView[];
  names: Map<string, string>;
}

async function loadInbox(client: Client, signal: AbortSignal): Promise<Inbox> {
  const [waitingPage, recentPage, names] = await Promise.all([
    client.approvals.list({ status: 'unanswered', limit: 100 }, { signal }),
    client.approvals.list({ limit: HISTORY_SIZE }, { signal }),
    agentNames(client, signal),
  ]);
  const whole = await Promise.all(
    waitingPage.items.map((approval) =>
      approval.quorum === undefined ? approval : client.approvals.retrieve(approval.id, {}, { signal }),
    ),
  );
  const waiting = whole.sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt));
  const history = recentPage.items.filter((approval) => approval.status !== 'unanswered');
  return { waiting, history, names };
}

export function ApprovalsPage() {
  const client = useClient();
  const inbox = useLoad((signal) => loadInbox(client, signal), [client]);
  useInterval(inbox.reload, REFRESH_MS);
  return (
    <>
      <h1>Approvals</h1>
      <LoadedView loaded={inbox} what="approvals">
        {({ waiting, history, names }) => (
          <>
            <section aria-labelledby="waiting-heading">
              <h2 id="waiting-heading">Waiting for you ({waiting.length})</h2>
              {waiting.length === 0 ? (
                <EmptyState title="No question is waiting for an answer.">
                  <p>
                    Agents ask with the <code>ask_my_user</code> tool, workflows with an <code>approval</code> node, scripts with the SDK's{' '}
                    <code>askHuman</code>. Their questions appear here as they are asked.
                  </p>
                </EmptyState>
              ) : (
                <ul class="cards">
                  {waiting.map((approval) => (
                    <li key={approval.id}>
                      <ApprovalCard approval={approval} agentName={names.get(approval.agentId ?? '')} onAnswered={inbox.reload} />
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section aria-labelledby="history-heading">
              <h2 id="history-heading">Answered and expired</h2>
              <ApprovalHistory approvals={history} names={names} />
            </section>
          </>
        )}
      </LoadedView>
    </>
  );
}
