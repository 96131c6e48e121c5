// One approval on its own page: the question and, while it waits, its card to answer it; once decided, the
// answer, its note and how it came. A team's question shows its rule, tally, each approver's vote and who
// decided (approval-team.tsx), and, while it waits, a way to hand a waiting approver's vote on; every question
// the channels it was sent over. Re-read every few seconds while it waits, so others' votes appear.
import type { ApprovalView } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { Link } from '../router.tsx';
import { agentNames } from '../ui/agent-names.ts';
import { LoadedView } from '../ui/states.tsx';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';
import { AskedBy } from './asked-by.tsx';
import { ApprovalCard } from './approval-card.tsx';
import { Seats, TeamFacts } from './approval-team.tsx';

const REFRESH_MS = 5000;

export function ApprovalPage({ id }: { id: string }) {
  const client = useClient();
  const loaded = useLoad(
    async (signal) => {
      const [approval, names] = await Promise.all([client.approvals.retrieve(id, {}, { signal }), agentNames(client, signal)]);
      return { approval, agentName: names.get(approval.agentId ?? '') };
    },
    [client, id],
  );
  const waiting = loaded.data?.approval.status === 'unanswered';
  useInterval(() => {
    if (waiting) loaded.reload();
  }, REFRESH_MS);
  return (
    <>
      <h1>Approval {id}</h1>
      <p>
        <Link to="/approvals">All approvals</Link>
      </p>
      <LoadedView loaded={loaded} what="the approval">
        {({ approval, agentName }) =>
          approval.status === 'unanswered' ? (
            <ApprovalCard approval={approval} agentName={agentName} onAnswered={loaded.reload} onHandedOn={loaded.reload} />
          ) : (
            <Decided approval={approval} agentName={agentName} />
          )
        }
      </LoadedView>
      {loaded.data && <Dispatches approval={loaded.data.approval} />}
    </>
  );
}

function Decided({ approval, agentName }: { approval: ApprovalView; agentName: string | undefined }) {
  const questionId = `question-${approval.id}`;
  return (
    <article class="card approval" aria-labelledby={questionId}>
      <p class="question" id={questionId}>
        {approval.question}
      </p>
      <dl class="facts">
        <dt>Outcome</dt>
        <dd>
          {approval.status === 'answered' ? <span class="badge ok">{approval.choice}</span> : <span class="badge muted">expired</span>}
          {approval.answeredVia && <span class="muted-label"> via {approval.answeredVia}</span>}
        </dd>
        {approval.note && (
          <>
            <dt>Note</dt>
            <dd>{approval.note}</dd>
          </>
        )}
        <dt>Asked by</dt>
        <dd>
          <AskedBy approval={approval} agentName={agentName} />
        </dd>
        <dt>Asked</dt>
        <dd>
          <When iso={approval.createdAt} />
        </dd>
        <dt>{approval.status === 'answered' ? 'Answered' : 'Expired'}</dt>
        <dd>
          <When iso={approval.answeredAt ?? approval.expiredAt ?? approval.expiresAt} />
        </dd>
        <TeamFacts approval={approval} />
      </dl>
      <Seats approval={approval} />
    </article>
  );
}

/** The channels the question went over, in declared order, with how each went. */
function Dispatches({ approval }: { approval: ApprovalView }) {
  const dispatches = approval.dispatches ?? [];
  if (dispatches.length === 0) return null;
  return (
    <section aria-labelledby="dispatches-heading">
      <h2 id="dispatches-heading">Sent over</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {dispatches.map((dispatch, index) => (
            <tr key={dispatch.position ?? index}>
              <td>{dispatch.provider ?? '-'}</td>
              <td>
                <span class={`badge ${dispatch.status === 'sent' ? 'ok' : dispatch.status === 'failed' ? 'bad' : 'muted'}`}>
                  {dispatch.status ?? '-'}
                </span>
              </td>
              <td>{dispatch.attempts ?? '-'}</td>
              <td>{dispatch.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
