// The command tree: global options first (so every subcommand inherits them and the exit override),
// then one module per group of commands.
import { Command } from 'commander';
import { registerAccount } from './commands/account.ts';
import { registerAgents } from './commands/agents.ts';
import { registerApprovals } from './commands/approvals.ts';
import { registerApprovers } from './commands/approvers.ts';
import { registerChat } from './commands/chat.ts';
import { registerCustomCommands } from './commands/custom.ts';
import { registerDeploy } from './commands/deploy.ts';
import { registerEvals } from './commands/evals.ts';
import { registerEvents } from './commands/events.ts';
import { registerFiles } from './commands/files.ts';
import { registerKeys } from './commands/keys.ts';
import { registerLimits } from './commands/limits.ts';
import { registerMcps } from './commands/mcps.ts';
import { registerRevisions } from './commands/revisions.ts';
import { registerRuns } from './commands/runs.ts';
import { registerSecrets } from './commands/secrets.ts';
import { registerSend } from './commands/send.ts';
import { registerSessions } from './commands/sessions.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import { withExamples } from './help.ts';

declare const CLI_VERSION: string;

export function buildProgram(): Command {
  const program = new Command('agent-service')
    .description('Deploy agents, talk to them, and manage everything of the agent hosting service.')
    .version(typeof CLI_VERSION === 'string' ? CLI_VERSION : '0.0.0-dev', '-V, --version', 'print the version')
    .option('--json', 'print machine-readable JSON only on stdout')
    .option('-p, --profile <name>', 'the login profile to use (default: "default", or AGENT_SERVICE_PROFILE)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError()
    .exitOverride();
  withExamples(program, [
    'agent-service login --url http://127.0.0.1:3000',
    'agent-service deploy service.jsonc',
    'agent-service chat helper',
    'agent-service send helper "What is the capital of France?"',
    'agent-service agents ls --json',
  ]);
  program.addHelpText('after', '\nExit status: 0 ok, 1 error, 2 usage (a wrong command line), 3 the turn failed or was aborted.\n');

  registerAccount(program);
  registerDeploy(program);
  registerAgents(program);
  registerRevisions(program);
  registerEvals(program);
  registerSessions(program);
  registerEvents(program);
  registerFiles(program);
  registerChat(program);
  registerSend(program);
  registerApprovals(program);
  registerApprovers(program);
  registerRuns(program);
  registerKeys(program);
  registerLimits(program);
  registerSecrets(program);
  registerWebhooks(program);
  registerMcps(program);
  registerCustomCommands(program);
  return program;
}
