// Custom commands of an agent's bundle (its `command` map): `agent-service run <agent> <command>
// [args...] [--flag value]`, or `agent-service <agent> <command> ...` when <agent> is no command of
// the CLI. The template is resolved here with the shared resolver first, so a missing argument is a
// usage error before anything is sent; the service then runs it (and resolves it the same way), and
// its reply streams as a send's does.
import type { Command } from 'commander';
import { resolveCommand } from '../../../contract/commands.ts';
import { contextOf } from '../context.ts';
import { CliError, ExitWith, EXIT, UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printLine } from '../output.ts';
import { withSpinner } from '../spinner.ts';
import { followTurn } from '../turn/follow-turn.ts';
import { err } from '../style.ts';
import { customCommandHelp } from '../custom/command-help.ts';
import { parseCommandWords } from '../custom/parse-words.ts';

export function registerCustomCommands(program: Command): void {
  const run = program
    .command('run')
    .description("Run one of an agent's custom commands (its bundle's `command` map)")
    .argument('[agent]')
    .argument('[command]')
    .argument('[args...]', "positional arguments and --flag value pairs, as the command's template takes them")
    .option('-s, --session <id>', 'send into this session of the agent (default: a new session)')
    .helpOption(false)
    .allowUnknownOption()
    .action(
      async (agent: string | undefined, name: string | undefined, words: string[], options: { session?: string }, command: Command) => {
        const context = contextOf(command);
        const parsed = parseCommandWords(words);
        const asksHelp = parsed.help || agent === '--help' || agent === '-h' || name === '--help' || name === '-h';
        if (!agent || !name || agent.startsWith('-') || name.startsWith('-')) {
          if (agent && !agent.startsWith('-') && asksHelp) return listCommands(context, agent);
          if (asksHelp) return command.outputHelp();
          throw new UsageError(
            agent
              ? `Name one of ${agent}'s commands (agent-service agents show ${agent} lists them)`
              : 'Name an agent and one of its commands',
          );
        }
        const client = context.client();
        const detail = await withSpinner(`Reading ${agent}`, () => client.agents.retrieve(agent), { quiet: context.json });
        const view = detail.commands.find((candidate) => candidate.name === name);
        if (!view) {
          const known = detail.commands.map((candidate) => candidate.name);
          throw new UsageError(
            `${agent} has no command "${name}"${known.length ? `; its commands: ${known.join(', ')}` : ': it has no commands'}`,
          );
        }
        if (parsed.help) {
          process.stdout.write(customCommandHelp(agent, view));
          return;
        }
        const resolved = resolveCommand(view.template, { args: parsed.args, flags: parsed.flags });
        if (!resolved.ok) {
          throw new UsageError(
            `${resolved.errors.map((error) => error.message).join('; ')}\nusage: agent-service run ${agent} ${name} ${view.usage}`.trimEnd(),
          );
        }
        const stream = client.agents.runCommandStream(agent, name, {
          args: parsed.args,
          flags: parsed.flags,
          ...(options.session ? { sessionId: options.session } : {}),
        });
        // A command may open a session of its own (a subtask, or no --session): the answer names it.
        const { sessionId } = await stream.ready;
        if (!context.json) note(err().dim(`session ${sessionId}`));
        const code = await followTurn(client, sessionId, stream, { json: context.json });
        if (code !== EXIT.ok) throw new ExitWith(code);
      },
    );
  withExamples(run, [
    'agent-service run helper review pr-12 --tone kind',
    'agent-service helper review pr-12 --tone kind        # the same, when "helper" is no CLI command',
    'agent-service run helper review --help               # what the command takes',
    "agent-service run helper --help                      # the agent's commands",
  ]);
}

async function listCommands(context: ReturnType<typeof contextOf>, agent: string): Promise<void> {
  const detail = await context.client().agents.retrieve(agent);
  if (context.json) return printJson(detail.commands);
  if (detail.commands.length === 0) throw new CliError(`${agent} has no custom commands`);
  printLine(`Commands of ${agent}:`);
  for (const view of detail.commands) printLine(`  ${view.name} ${view.usage}`.trimEnd());
}

/**
 * `agent-service <agent> <command> ...` is `agent-service run <agent> <command> ...` when the first
 * word names no command of the CLI (the CLI's own commands always win).
 */
export function expandShorthand(program: Command, argv: string[]): string[] {
  const first = argv[2];
  if (first === undefined || first.startsWith('-')) return argv;
  const known = new Set(['help', ...program.commands.flatMap((command) => [command.name(), ...command.aliases()])]);
  if (known.has(first) || argv.length < 4 || argv[3]!.startsWith('-')) return argv;
  return [...argv.slice(0, 2), 'run', ...argv.slice(2)];
}
