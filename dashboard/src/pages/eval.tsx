// An eval run's report: what ran (agent, revision, set, how tools were answered), the totals, and every
// case with its verdicts and the candidate's transcript beside the baseline. While the run goes on the
// page reads it again every few seconds; Cancel stops it (after the browser's confirmation).
import type { Client } from '@agent-service/sdk';
import { useClient } from '../auth/client-context.ts';
import { CaseCard } from '../evals/case-card.tsx';
import { StatusBadge, passedText } from '../evals/badges.tsx';
import { Link } from '../router.tsx';
import { ProblemView } from '../ui/problem-view.tsx';
import { LoadedView } from '../ui/states.tsx';
import { usd } from '../ui/time.ts';
import { useAction } from '../ui/use-action.ts';
import { useInterval } from '../ui/use-interval.ts';
import { useLoad } from '../ui/use-load.ts';
import { When } from '../ui/when.tsx';

const REFRESH_MS = 3000;

const load = (client: Client, id: string, signal: AbortSignal) => client.evals.retrieve(id, { signal });

export function EvalPage({ id }: { id: string }) {
  const client = useClient();
  const loaded = useLoad((signal) => load(client, id, signal), [client, id]);
  const running = loaded.data?.status === 'running';
  useInterval(() => {
    if (running && !loaded.loading) loaded.reload();
  }, REFRESH_MS);
  const { error, run } = useAction();

  const cancel = () => {
    if (!window.confirm(`Cancel the eval ${id}? Its cases still running are aborted; those that ended keep their verdicts.`)) return;
    void run(async () => {
      await client.evals.cancel(id);
      loaded.reload();
    });
  };

  return (
    <LoadedView loaded={loaded} what="the eval">
      {(report) => (
        <>
          <div class="page-head">
            <h1>Eval {report.id}</h1>
            {running && (
              <button type="button" class="danger" onClick={cancel}>
                Cancel the run
              </button>
            )}
          </div>
          {error !== undefined && <ProblemView error={error} />}
          <dl class="facts">
            <dt>Agent</dt>
            <dd>
              <Link to={`/agents/${encodeURIComponent(report.agent)}`}>{report.agent}</Link>
            </dd>
            <dt>Revision</dt>
            <dd>{report.revision}</dd>
            {report.set && (
              <>
                <dt>Set</dt>
                <dd>
                  <code>{`${report.set.name}@${report.set.version}`}</code>
                </dd>
              </>
            )}
            <dt>Status</dt>
            <dd>
              <span role="status">
                <StatusBadge status={report.status} />
              </span>
            </dd>
            <dt>Result</dt>
            <dd>
              {passedText(report.summary)}; {report.summary.failed} failed, {report.summary.errors} errors, {report.summary.cancelled}{' '}
              cancelled, {report.summary.pending} pending
            </dd>
            <dt>Tools</dt>
            <dd>{report.replayTools === 'recorded' ? 'answered with the recorded results' : 'run live'}</dd>
            <dt>Cost</dt>
            <dd>{usd(report.summary.costUsd)}</dd>
            <dt>Started</dt>
            <dd>
              <When iso={report.createdAt} />
            </dd>
            {report.endedAt && (
              <>
                <dt>Ended</dt>
                <dd>
                  <When iso={report.endedAt} />
                </dd>
              </>
            )}
          </dl>
          <section aria-labelledby="cases-heading">
            <h2 id="cases-heading">Cases</h2>
            <ol class="cards">
              {report.cases.map((evalCase) => (
                <CaseCard key={evalCase.id} evalCase={evalCase} revision={report.revision} />
              ))}
            </ol>
          </section>
        </>
      )}
    </LoadedView>
  );
}
