// One case of an eval report: its input, its status, why it passed or failed (each check's verdict in
// its own words, or the error that kept it from being graded; a rubric judge's score, prompt and answer),
// and the candidate's transcript beside the recorded session's, so a regression reads at a glance: a
// different reply, a tool no longer called.
import type { EvalRunView } from '@agent-service/sdk';
import { Link } from '../router.tsx';
import { usd } from '../ui/time.ts';
import { StatusBadge } from './badges.tsx';
import { JudgeView, ScoreText } from './judge-view.tsx';
import { TranscriptView } from './transcript-view.tsx';

type EvalCase = EvalRunView['cases'][number];

function Verdicts({ evalCase }: { evalCase: EvalCase }) {
  if (evalCase.verdicts.length === 0) return null;
  return (
    <table>
      <caption class="visually-hidden">Checks of case {evalCase.id}</caption>
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Verdict</th>
          <th scope="col">Why</th>
        </tr>
      </thead>
      <tbody>
        {evalCase.verdicts.map((verdict, index) => (
          <tr key={index}>
            <td>
              <code>{verdict.grader}</code>
            </td>
            <td>
              {verdict.passed ? <span class="badge ok">passed</span> : <span class="badge bad">failed</span>}
              <ScoreText verdict={verdict} />
            </td>
            <td class="pre">
              {verdict.explanation}
              {verdict.judge && <JudgeView judge={verdict.judge} />}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CaseCard({ evalCase, revision }: { evalCase: EvalCase; revision: number }) {
  const heading = `case-${evalCase.id}-heading`;
  const ended = evalCase.status !== 'pending' && evalCase.status !== 'running';
  return (
    <li class="card" aria-labelledby={heading}>
      <h3 id={heading}>
        Case {evalCase.id} <StatusBadge status={evalCase.status} />
      </h3>
      <p class="message-text">{evalCase.input}</p>
      <p class="hint">
        {evalCase.latencyMs !== null && `${(evalCase.latencyMs / 1000).toFixed(1)} s · `}
        {evalCase.costUsd !== null && `${usd(evalCase.costUsd)} · `}
        {evalCase.sessionId ? <Link to={`/sessions/${evalCase.sessionId}`}>the case's session</Link> : 'not started'}
      </p>
      {evalCase.error && (
        <p class="line-note" role="note">
          {evalCase.error}
        </p>
      )}
      <Verdicts evalCase={evalCase} />
      <div class="side-by-side">
        <TranscriptView
          title={`Candidate, revision ${revision}`}
          transcript={evalCase.transcript}
          none={ended ? 'Nothing: the case ended before its turn did.' : 'Not ended yet.'}
        />
        <TranscriptView
          title="Baseline, the recorded session"
          transcript={evalCase.baseline}
          none="None: a written case has no recording to compare with."
          recorded
        >
          {evalCase.fromSessionId && (
            <p class="hint">
              <Link to={`/sessions/${evalCase.fromSessionId}`}>{evalCase.fromSessionId}</Link>
            </p>
          )}
        </TranscriptView>
      </div>
    </li>
  );
}
