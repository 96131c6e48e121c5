// Every `agent-service ...` command line the docs show (README.md, docs/, cli/README.md) is one the
// CLI takes: its subcommands exist (by name or alias), each option is one the command or an ancestor
// declares, and no required argument is left out. The command tree is the CLI's own (`buildProgram`),
// walked without running anything, so a renamed command or flag fails here naming the page and line
// that still shows the old one. Placeholders (`ses_...`, `<id>`) count as arguments. A line for an
// agent's custom command (`agent-service helper review ...`) names no CLI command and is left alone,
// unless its first word is a command with its plural `s` added or dropped (`event ses_1`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../cli/src/program.ts';

// The CLI's own commander (its workspace's version), not whatever the root resolves `commander` to.
type Command = ReturnType<typeof buildProgram>;
type Option = Command['options'][number];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The words after each `agent-service` a line runs as a command (at its start, after `npx`, `$(`, a pipe,
 * `;`, `&&` or an opening backtick; not a value such as `--task-queue agent-service`), up to a shell
 * operator or comment; quoted words kept together.
 */
function invocations(line: string): string[][] {
  const found: string[][] = [];
  for (const match of line.matchAll(
    /(?:^\s*|npx\s+|\$\(|\|\s*|`|;\s*|&&\s*)agent-service((?:[ \t]+(?:"[^"]*"|'[^']*'|[^\s|;&#`)"']+))*)/g,
  )) {
    const words = [...match[1]!.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((word) => word[1] ?? word[2] ?? word[3]!);
    found.push(words);
  }
  return found;
}

const named = (command: Command, word: string) => command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));

function optionOf(command: Command, flag: string): Option | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (option) return option;
  }
  return undefined;
}

/** What is wrong with one command line, as the CLI would see it; empty when it would parse. */
function commandLineProblems(program: Command, words: string[]): string[] {
  let command = program;
  let index = 0;
  for (; index < words.length; index += 1) {
    const sub = named(command, words[index]!);
    if (!sub) break;
    command = sub;
  }
  if (command === program && index < words.length && !words[index]!.startsWith('-')) {
    // `agent-service <agent> <command> ...` runs an agent's custom command, so an unknown first word may be
    // an agent's name; but one a plural `s` away from a command (`event`, `approval`) is that command misspelt.
    const word = words[index]!;
    const meant = named(program, `${word}s`) ?? named(program, word.replace(/s$/, ''));
    return meant ? [`there is no command ${word}; ${meant.name()}?`] : [];
  }
  const problems: string[] = [];
  const positionals: string[] = [];
  const open = (command as Command & { _allowUnknownOption?: boolean })._allowUnknownOption === true;
  for (; index < words.length; index += 1) {
    const word = words[index]!;
    if (word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    const [flag, inlineValue] = word.split('=', 2) as [string, string | undefined];
    if (flag === '--help' || flag === '-h') return problems;
    const option = optionOf(command, flag);
    if (!option) {
      if (!open) problems.push(`${command.name()} has no option ${flag}`);
      continue;
    }
    if (option.required && inlineValue === undefined) index += 1;
  }
  const required = command.registeredArguments.filter((argument) => argument.required).length;
  if (command.commands.length > 0 && positionals.length > 0 && command !== program)
    problems.push(`${command.name()} has no subcommand ${positionals[0]}`);
  else if (positionals.length < required) problems.push(`${command.name()} needs ${required} argument(s), got ${positionals.length}`);
  return problems;
}

function pages(): string[] {
  const docs = path.join(ROOT, 'docs');
  return [
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'cli/README.md'),
    ...fs
      .readdirSync(docs)
      .filter((name) => name.endsWith('.md'))
      .map((name) => path.join(docs, name)),
  ];
}

describe('the check', () => {
  const program = buildProgram();
  const problems = (line: string) => invocations(line).flatMap((words) => commandLineProblems(program, words));

  it('passes command lines the CLI takes: aliases, quoted words, options with values, help, custom commands', () => {
    expect(problems('npx agent-service approvals list --status unanswered -n 5 # newest first')).toEqual([]);
    expect(problems('npx agent-service approvals answer apr_... "one of them" --note "after lunch"')).toEqual([]);
    expect(problems('SCHEDULE=$(npx agent-service agents show planner --json | jq -r .x)')).toEqual([]);
    expect(problems('`agent-service secrets set TOKEN --host api.example.com`, then `agent-service deploy --dry-run`')).toEqual([]);
    expect(problems('npx agent-service helper review pr-12 --tone=kind')).toEqual([]);
    expect(problems('npx agent-service run helper review --tone kind')).toEqual([]);
    expect(problems('npx agent-service sessions --help')).toEqual([]);
    expect(problems('temporal workflow execute --task-queue agent-service --workflow-id check-1')).toEqual([]);
  });

  it('finds a renamed subcommand, an unknown option and a missing argument', () => {
    expect(problems('npx agent-service approvals reply apr_1 yes')).toEqual(['approvals has no subcommand reply']);
    expect(problems('npx agent-service event ses_1 --follow')).toEqual(['there is no command event; events?']);
    expect(problems('npx agent-service events ses_1 --tail')).toEqual(['events has no option --tail']);
    expect(problems('npx agent-service approvals answer apr_1 --note ok')).toEqual(['answer needs 2 argument(s), got 1']);
  });
});

describe('the docs', () => {
  const program = buildProgram();
  it.each(pages().map((file) => [path.relative(ROOT, file), file]))(
    '%s: every agent-service command line is one the CLI takes',
    (_name, file) => {
      const problems: string[] = [];
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const words of invocations(line)) {
            for (const problem of commandLineProblems(program, words))
              problems.push(`${path.relative(ROOT, file)}:${index + 1} ${problem}`);
          }
        });
      expect(problems).toEqual([]);
    },
  );

  it('reads the command lines of the tutorial', () => {
    const lines = fs.readFileSync(path.join(ROOT, 'docs/tutorial.md'), 'utf8').split('\n').flatMap(invocations);
    expect(lines.length).toBeGreaterThan(8);
  });
});
