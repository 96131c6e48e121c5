// eval set put|show|ls: stored, versioned sets of written cases. A run names one (`eval run --set`), and
// `promote --require-eval <set>` promotes only a revision with a passing run against it. Each put adds a
// version; the cases come from a JSONL or JSON file, checked as `eval run --cases` checks them.
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { age, note, printJson, printTable } from '../output.ts';
import { readCasesFile } from '../evals/cases-file.ts';
import { locatedRefusal } from '../evals/located-refusal.ts';
import { UsageError } from '../exit-codes.ts';

const INPUT_WIDTH = 60;

const oneLine = (text: string) => {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > INPUT_WIDTH ? `${folded.slice(0, INPUT_WIDTH - 1)}…` : folded;
};

/** `smoke` or `smoke@2`: a set's name and the version asked for, if any (a usage error when it is neither). */
function setRef(ref: string): [string, number | undefined] {
  const match = /^([a-z0-9][a-z0-9_-]{0,63})(?:@([1-9][0-9]{0,8}))?$/.exec(ref);
  if (!match) throw new UsageError(`Not a set: "${ref}". Give its name, or name@<version>, e.g. smoke@2.`);
  return [match[1]!, match[2] === undefined ? undefined : Number(match[2])];
}

export function registerEvalSets(evals: Command): void {
  const sets = evals.command('set').alias('sets').description('Stored sets of eval cases, versioned: what `eval run --set` runs');
  withExamples(sets, ['agent-service eval set put smoke cases.jsonl', 'agent-service eval set ls']);

  withExamples(
    sets
      .command('put')
      .description("Store a file's cases as the set's next version (1 for a new name)")
      .argument('<name>', 'lower-case letters, digits, - and _')
      .argument('<file>', '.jsonl, one {"input", "expect"} per line, or .json, an array of them')
      .action(async (name: string, path: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const file = readCasesFile(path);
        const stored = await context
          .client()
          .evals.putSet(name, { cases: file.cases })
          .catch((error: unknown) => locatedRefusal(error, context.json ? undefined : file));
        if (context.json) return printJson(stored);
        note(`Stored ${stored.name} version ${stored.version} (${stored.cases} case${stored.cases === 1 ? '' : 's'}).`);
      }),
    ['agent-service eval set put smoke evals/smoke.jsonl'],
  );

  withExamples(
    sets
      .command('show')
      .description("A set's cases: its latest version, or the one named with @ (smoke@2)")
      .argument('<name>', 'the set, or name@<version>')
      .action(async (ref: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const [name, version] = setRef(ref);
        const set = await context.client().evals.getSet(name, version === undefined ? {} : { version });
        if (context.json) return printJson(set);
        note(`${set.name} version ${set.version}, stored ${age(set.createdAt)}`);
        printTable(
          ['#', 'INPUT', 'CHECKS'],
          set.items.map((item, index) => [index, oneLine(item.input), Object.keys(item.expect ?? {}).join(', ') || '-']),
        );
      }),
    ['agent-service eval set show smoke', 'agent-service eval set show smoke@2 --json'],
  );

  withExamples(
    sets
      .command('ls')
      .alias('list')
      .description('Your sets, each at its latest version')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { sets: list } = await context.client().evals.listSets();
        if (context.json) return printJson(list);
        printTable(
          ['NAME', 'VERSION', 'CASES', 'STORED'],
          list.map((set) => [set.name, set.version, set.cases, age(set.createdAt)]),
          'No eval sets yet: store one with `agent-service eval set put <name> cases.jsonl`.',
        );
      }),
    ['agent-service eval set ls'],
  );
}
