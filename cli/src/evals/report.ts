// An eval run as a person reads it in a terminal: the run, a row per case with why it failed (the failed
// checks' own explanations, or the case's error), a row per rubric judge's verdict (its model, score and
// cost, which a passing verdict would otherwise not show), then the totals and the score a CI gate
// compares with --min-score. The service's text (inputs, explanations) goes through printTable, which
// strips terminal escapes.
import type { EvalRunList, EvalRunView } from '@agent-service/sdk';
import { age, printFields, printLine, printTable } from '../output.ts';

type EvalCase = EvalRunView['cases'][number];
type Summary = EvalRunView['summary'];

const INPUT_WIDTH = 40;

/** One line of at most `width` characters: newlines and runs of spaces folded, an ellipsis where cut. */
function oneLine(text: string, width = Infinity): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > width ? `${folded.slice(0, width - 1)}…` : folded;
}

/** The share of all cases that passed: what --min-score gates on (an error, a pending or cancelled case counts as not passed). */
export function passRate(summary: Summary): number {
  return summary.cases === 0 ? 0 : summary.passed / summary.cases;
}

export function usd(cost: number | null | undefined): string {
  return typeof cost === 'number' ? `$${cost.toFixed(4)}` : '-';
}

/** Why a case did not pass: its error, or each failed check with its explanation. */
function whyNot(evalCase: EvalCase): string {
  if (evalCase.error) return `error: ${oneLine(evalCase.error)}`;
  const failed = evalCase.verdicts.filter((verdict) => !verdict.passed);
  return failed.map((verdict) => `${verdict.grader}: ${oneLine(verdict.explanation)}`).join('; ');
}

/** A row per rubric verdict, in case order; a reply not judged (its turn did not complete) has no judge or score. */
function printJudges(cases: EvalCase[]): void {
  const rows = cases.flatMap((evalCase) =>
    evalCase.verdicts
      .filter((verdict) => verdict.grader === 'rubric')
      .map((verdict) => [
        evalCase.id,
        verdict.judge?.model,
        verdict.score?.toFixed(2),
        verdict.passed ? 'passed' : 'failed',
        verdict.judge ? usd(verdict.judge.costUsd) : undefined,
      ]),
  );
  if (rows.length === 0) return;
  printLine();
  printTable(['CASE', 'JUDGE', 'SCORE', 'VERDICT', 'COST'], rows);
}

export function totalsLine(summary: Summary): string {
  return (
    `${summary.passed} of ${summary.cases} passed (score ${passRate(summary).toFixed(2)}), ${summary.failed} failed, ` +
    `${summary.errors} error${summary.errors === 1 ? '' : 's'}, ${summary.cancelled} cancelled, ${summary.pending} pending; cost ${usd(summary.costUsd)}`
  );
}

export function printReport(run: EvalRunView): void {
  printFields([
    ['eval', run.id],
    ['agent', run.agent],
    ['revision', run.revision],
    ...(run.set ? [['set', `${run.set.name}@${run.set.version}`] as [string, string]] : []),
    ['status', run.status],
    ['tools', run.replayTools === 'recorded' ? 'recorded results replayed' : 'run live'],
    ['started', age(run.createdAt)],
    ['ended', run.endedAt ? age(run.endedAt) : undefined],
  ]);
  printLine();
  printTable(
    ['ID', 'STATUS', 'INPUT', 'FAILED CHECKS'],
    run.cases.map((evalCase) => [evalCase.id, evalCase.status, oneLine(evalCase.input, INPUT_WIDTH), whyNot(evalCase) || '-']),
    'No cases.',
  );
  printJudges(run.cases);
  printLine();
  printLine(totalsLine(run.summary));
}

export function printRuns(agent: string, runs: EvalRunList['runs']): void {
  printTable(
    ['ID', 'REVISION', 'STATUS', 'PASSED', 'SCORE', 'COST', 'STARTED'],
    runs.map((run) => [
      run.id,
      run.revision,
      run.status,
      `${run.summary.passed}/${run.summary.cases}`,
      passRate(run.summary).toFixed(2),
      usd(run.summary.costUsd),
      age(run.createdAt),
    ]),
    `No eval runs of ${agent} yet: start one with \`agent-service eval run ${agent} --cases cases.jsonl --wait\`.`,
  );
}
