// eval run|show|ls|cancel: a revision run against written cases (a JSONL or JSON file), a stored set or
// recorded sessions, each case graded by the service (docs/evals.md). `eval run --wait` is the CI gate: it
// waits for the run, prints the report, and exits 1 when the share of cases that passed is below
// --min-score. Stored sets are `eval set ...` (eval-sets.ts).
import { Option, type Command } from 'commander';
import { EVAL_LIMITS } from '../../../contract/operations/evals.ts';
import { contextOf } from '../context.ts';
import { EXIT, ExitWith, UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printLine } from '../output.ts';
import { withSpinner } from '../spinner.ts';
import { err } from '../style.ts';
import { locatedRefusal } from '../evals/located-refusal.ts';
import { passRate, printReport, printRuns } from '../evals/report.ts';
import { numberOption, runBody, type RunOptions } from '../evals/run-body.ts';
import { registerEvalSets } from './eval-sets.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

export function registerEvals(program: Command): void {
  const evals = program
    .command('eval')
    .alias('evals')
    .description('Eval runs: a revision run against cases, each case graded (docs/evals.md)');
  withExamples(evals, [
    'agent-service eval run helper --revision 4 --cases cases.jsonl --wait',
    'agent-service eval show evl_123',
    'agent-service eval ls helper',
  ]);

  withExamples(
    evals
      .command('run')
      .description(
        'Run a revision (default: the live one) against written cases, a stored set or recorded sessions; with --wait, ' +
          'print the report and exit 1 when the share of cases passed is below --min-score',
      )
      .argument('<agent>')
      .option('--revision <n>', 'the candidate revision, e.g. one staged with `deploy --stage`')
      .option('--cases <file>', 'written cases: .jsonl, one {"input", "expect"} per line, or .json, an array of them')
      .option('--set <name>', 'a stored set (`eval set put`): its latest version, or name@<version>')
      .option('--from-session <id...>', "recorded sessions of the agent: each one's first message is a case, its reply the baseline")
      .option('--expect-contains <text>', 'every case must reply with this text (a case with its own "contains" keeps it)')
      .addOption(
        new Option(
          '--replay <mode>',
          'service tool calls: answered with the recorded results (default with --from-session) or run',
        ).choices(['recorded', 'live']),
      )
      .addOption(
        new Option(
          '--unmatched <mode>',
          'a replayed call no recording matches: a tool error (default), or run live if its tool is safe to (bundle safeTools)',
        ).choices(['error', 'live']),
      )
      .option('--concurrency <n>', `cases at once, 1 to ${EVAL_LIMITS.maxConcurrency} (default 4)`)
      .option('--max-latency-ms <n>', 'fail a case whose turn took longer than this')
      .option('--max-cost-usd <x>', 'fail a case whose turn cost more than this')
      .option(
        '--rubric <text>',
        'a model judges each completed reply against this text and scores it 0 to 1 (repeatable: a judge each)',
        (text: string, previous: string[] = []) => [...previous, text],
      )
      .option('--judge-model <provider/model>', "the rubric judges' model (default: the candidate revision's)")
      // Not --min-score: that is the run's CI gate, the share of cases that must pass.
      .option('--judge-min-score <0..1>', 'the least score a rubric judge passes (default 0.7)')
      .option('--estimate', "print the run's estimated cost (from the agent's recent turns) and run nothing")
      .option('--wait', 'wait for the run to end, print the report, and gate on --min-score')
      .option('--min-score <0..1>', 'with --wait: the share of cases that must pass (default 1: every case)')
      .action(async (agent: string, options: RunOptions, command: Command) => {
        const context = contextOf(command);
        const { body, file } = runBody(options);
        if (options.minScore !== undefined && !options.wait) throw new UsageError('--min-score gates a run waited for: add --wait');
        const minScore = numberOption('--min-score', options.minScore ?? '1', { min: 0, max: 1 });
        const client = context.client();
        if (options.estimate) {
          const estimated = await client.evals
            .estimate(agent, body)
            .catch((error: unknown) => locatedRefusal(error, context.json ? undefined : file));
          if (context.json) return printJson(estimated);
          const { costUsd, basis } = estimated.estimate;
          printLine(costUsd === null ? 'unknown' : `$${costUsd.toFixed(4)}`);
          note(err().dim(`${plural(estimated.cases, 'case')}: ${basis}`));
          return;
        }
        const started = await client.evals
          .create(agent, body)
          .catch((error: unknown) => locatedRefusal(error, context.json ? undefined : file));
        if (!options.wait) {
          if (context.json) return printJson(started);
          printLine(started.id);
          note(err().dim(`${plural(started.cases, 'case')} running: agent-service eval show ${started.id}`));
          if (started.estimate.costUsd !== null) note(err().dim(`Estimated cost: $${started.estimate.costUsd.toFixed(4)}`));
          return;
        }
        if (!context.json) note(err().dim(`${started.id}: ${plural(started.cases, 'case')}; Ctrl-C stops waiting, not the run`));
        // Each case as it ends, on stderr (the report goes to stdout once the run has ended).
        if (!context.json) {
          for await (const progress of client.evals.progress(started.id)) {
            if (progress.type !== 'case') continue;
            const { id, status, latencyMs } = progress.case;
            note(err().dim(`case ${id} ${status}${latencyMs === null ? '' : ` (${(latencyMs / 1000).toFixed(1)} s)`}`));
          }
        }
        const run = await withSpinner(`Running ${started.id}`, () => client.evals.waitFor(started.id), { quiet: context.json });
        if (context.json) printJson(run);
        else printReport(run);
        const score = passRate(run.summary);
        if (score < minScore) {
          note(err().red(`Score ${score.toFixed(2)} is below --min-score ${minScore}: the gate fails.`));
          throw new ExitWith(EXIT.error);
        }
        if (!context.json) note(err().green(`Score ${score.toFixed(2)} meets --min-score ${minScore}.`));
      }),
    [
      'agent-service eval run helper --revision 4 --cases cases.jsonl --wait',
      'agent-service eval run helper --revision 4 --set smoke --wait --min-score 0.95',
      'agent-service eval run helper --revision 4 --set smoke --estimate',
      'agent-service eval run helper --revision 4 --from-session ses_1 ses_2 --wait',
      'agent-service eval run helper --cases cases.json --max-latency-ms 20000 --concurrency 2',
      'agent-service eval run helper --cases cases.jsonl --rubric "Polite, and names the order number" --judge-min-score 0.8 --wait',
    ],
  );

  withExamples(
    evals
      .command('show')
      .description("A run: a row per case with its failed checks, each rubric judge's score, then the totals")
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const run = await context.client().evals.retrieve(id);
        if (context.json) return printJson(run);
        printReport(run);
      }),
    ['agent-service eval show evl_123', 'agent-service eval show evl_123 --json | jq ".cases[] | select(.passed == false)"'],
  );

  withExamples(
    evals
      .command('ls')
      .alias('list')
      .description("An agent's eval runs, newest first (the last 100)")
      .argument('<agent>')
      .action(async (agent: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const { runs } = await context.client().evals.list(agent);
        if (context.json) return printJson(runs);
        printRuns(agent, runs);
      }),
    ['agent-service eval ls helper'],
  );

  withExamples(
    evals
      .command('cancel')
      .description('Cancel a run: its cases still running are aborted (a run that ended stays as it is)')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const result = await context.client().evals.cancel(id);
        if (context.json) return printJson(result);
        note(`Cancelling ${id}; \`agent-service eval show ${id}\` shows where it stopped.`);
      }),
    ['agent-service eval cancel evl_123'],
  );

  registerEvalSets(evals);
}
