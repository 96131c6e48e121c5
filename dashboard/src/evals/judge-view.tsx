// A rubric judge's work under its verdict: the score it gave, and, folded away as it is long, the model
// that judged, what its call cost, the prompt it was sent and the answer it wrote, so a reader can see why
// a reply passed or failed and whether the judge or the rubric is the one to blame.
import type { EvalRunView } from '@agent-service/sdk';
import { usd } from '../ui/time.ts';

type Verdict = EvalRunView['cases'][number]['verdicts'][number];

/** "score 0.90", beside the verdict's badge; nothing for a verdict no judge scored. */
export function ScoreText({ verdict }: { verdict: Verdict }) {
  if (verdict.score === undefined) return null;
  return <span class="score">score {verdict.score.toFixed(2)}</span>;
}

export function JudgeView({ judge }: { judge: NonNullable<Verdict['judge']> }) {
  return (
    <details class="judge">
      <summary>The judge’s prompt and answer</summary>
      <dl>
        <dt>Model</dt>
        <dd>
          <code>{judge.model}</code>
        </dd>
        <dt>Cost</dt>
        {/* A model with no price has no cost: say so rather than show a dash that reads as zero. */}
        <dd>{judge.costUsd === null ? 'unknown (the model has no price)' : usd(judge.costUsd)}</dd>
        <dt>Prompt</dt>
        <dd>
          <pre>{judge.prompt}</pre>
        </dd>
        <dt>Answer</dt>
        <dd>{judge.answer ? <pre>{judge.answer}</pre> : <span class="muted-label">None: the verdict says why.</span>}</dd>
      </dl>
    </details>
  );
}
