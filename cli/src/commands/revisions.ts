// promote|rollback|traffic: which revision of an agent serves its new sessions. A staged deploy
// (`deploy --stage`) stores a revision that serves none until promoted or given a traffic share.
import type { Command } from 'commander';
import type { RevisionChangeView } from '@agent-service/sdk';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printTable } from '../output.ts';

/** The service's bound on a revision number (contract/operations/revisions.ts). */
const MAX_REVISION = 999_999_999;

export function registerRevisions(program: Command): void {
  withExamples(
    program
      .command('promote')
      .description('Make a revision of an agent live: new sessions start on it, a canary ends; sessions under way keep theirs')
      .argument('<agent>')
      .argument('<revision>')
      .option('--require-eval <set>', 'only if a completed eval run of the revision against this stored set passed (docs/evals.md)')
      .option('--min-score <0..1>', 'with --require-eval: the share of its cases that must have passed (default 1)')
      .action(async (agent: string, word: string, options: { requireEval?: string; minScore?: string }, command: Command) => {
        const context = contextOf(command);
        const revision = revisionNumber(word);
        if (options.minScore !== undefined && options.requireEval === undefined)
          throw new UsageError('--min-score is the bar of --require-eval <set>: give the set too');
        const requireEval = options.requireEval === undefined ? undefined : { set: options.requireEval, ...minScoreOf(options.minScore) };
        const result = await context.client().agents.promote(agent, revision, requireEval ? { requireEval } : {});
        if (context.json) return printJson(result);
        note(
          result.change
            ? `${agent}: revision ${result.live} is live (was ${result.change.liveBefore ?? '-'}).`
            : `${agent}: revision ${result.live} was live already; nothing changed.`,
        );
      }),
    [
      'agent-service promote helper 4',
      'agent-service deploy --stage && agent-service promote helper 4',
      'agent-service promote helper 4 --require-eval smoke --min-score 0.95',
    ],
  );

  withExamples(
    program
      .command('rollback')
      .description('Make the revision that was live before the live one live again (a second rollback undoes the first)')
      .argument('<agent>')
      .action(async (agent: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const result = await context.client().agents.rollback(agent);
        if (context.json) return printJson(result);
        note(`${agent}: rolled back to revision ${result.live} (was ${result.change?.liveBefore ?? '-'}).`);
      }),
    ['agent-service rollback helper'],
  );

  withExamples(
    program
      .command('traffic')
      .description(
        'Send percents of new sessions to revisions other than the live one (a canary); the live one gets the rest. ' +
          'Without pairs it shows the shares; --clear ends the canary',
      )
      .argument('<agent>')
      .argument('[shares...]', '<revision>=<percent> pairs, e.g. 4=10; together they replace the shares before')
      .option('--clear', 'end the canary: every new session starts on the live revision')
      .action(async (agent: string, pairs: string[], options: { clear?: boolean }, command: Command) => {
        const context = contextOf(command);
        if (options.clear && pairs.length > 0) throw new UsageError('--clear ends the canary: give it no <revision>=<percent> pairs');
        // A bare command only reads: ending a canary takes the explicit --clear.
        if (!options.clear && pairs.length === 0) {
          const current = await context.client().agents.retrieve(agent);
          if (context.json) return printJson({ live: current.revision, traffic: current.traffic });
          printShares(current.revision, current.traffic);
          return;
        }
        const result = await context.client().agents.setTraffic(agent, trafficShares(pairs));
        if (context.json) return printJson(result);
        printShares(result.live, result.traffic);
        if (Object.keys(result.traffic).length === 0) note(`${agent}: no canary; every new session starts on revision ${result.live}.`);
      }),
    [
      'agent-service traffic helper 5=10          # 10% of new sessions on revision 5',
      'agent-service traffic helper 5=10 6=10',
      'agent-service traffic helper               # the shares now',
      'agent-service traffic helper --clear       # end the canary',
    ],
  );
}

/** A revision number from the command line; a usage error (exit 2) before anything is sent otherwise. */
export function revisionNumber(word: string): number {
  const revision = Number(word);
  if (!/^\d+$/.test(word.trim()) || revision < 1 || revision > MAX_REVISION)
    throw new UsageError(`Not a revision: "${word}". Give its number, e.g. 4.`);
  return revision;
}

/** `--min-score` as the service takes it: a share from 0 to 1, or nothing for its default (1). */
function minScoreOf(word: string | undefined): { minScore?: number } {
  if (word === undefined) return {};
  const score = Number(word);
  if (!/^(\d+(\.\d+)?|\.\d+)$/.test(word.trim()) || score > 1)
    throw new UsageError(`--min-score takes a share from 0 to 1; "${word}" is not one`);
  return { minScore: score };
}

/** `4=10 5=5` as the body of POST /agent/<name>/traffic; the service checks the live one and the 100% total. */
export function trafficShares(pairs: string[]): Record<string, number> {
  const shares: Record<string, number> = {};
  for (const pair of pairs) {
    const match = /^(\d+)=(\d+)%?$/.exec(pair.trim());
    if (!match || Number(match[2]) > 100) throw new UsageError(`Not a share: "${pair}". Give <revision>=<percent>, e.g. 4=10.`);
    const revision = String(revisionNumber(match[1]!));
    if (revision in shares) throw new UsageError(`Revision ${revision} is given twice.`);
    shares[revision] = Number(match[2]);
  }
  return shares;
}

/** The percent of new sessions each serving revision gets: the live one first, with what the shares leave it. */
export function printShares(live: number, traffic: Record<string, number>): void {
  const shared = Object.values(traffic).reduce((sum, percent) => sum + percent, 0);
  printTable(
    ['REVISION', 'STATE', 'NEW SESSIONS'],
    [
      [live, 'live', `${100 - shared}%`],
      ...Object.entries(traffic)
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([revision, percent]) => [revision, 'canary', `${percent}%`]),
    ],
  );
}

/** `4:10%, 5:5%`, or `-` with no shares: the traffic after a change, in one cell. */
export function describeShares(traffic: Record<string, number>): string {
  const entries = Object.entries(traffic).sort(([a], [b]) => Number(a) - Number(b));
  return entries.length ? entries.map(([revision, percent]) => `${revision}:${percent}%`).join(', ') : '-';
}

/** `2 -> 3`: the live revision before and after a change (`-` before an agent's first). */
export function describeLive(change: Pick<RevisionChangeView, 'liveBefore' | 'liveAfter'>): string {
  return change.liveBefore === change.liveAfter ? String(change.liveAfter) : `${change.liveBefore ?? '-'} -> ${change.liveAfter}`;
}
