// Every command's --help ends with examples; this keeps their layout the same everywhere.
import type { Command } from 'commander';

export function withExamples(command: Command, examples: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}\n`);
}
