// runs start <agent> <workflow> [--input]
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printLine } from '../output.ts';
import { err } from '../style.ts';

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description("Runs of an agent's workflows (the bundle's `workflows`)");
  withExamples(
    runs
      .command('start')
      .description('Start a workflow run in a new session; follow it with `events <session> --follow`')
      .argument('<agent>')
      .argument('<workflow>')
      .option('--input <text>', 'the run input ({{input}} in its prompts)')
      .action(async (agent: string, workflow: string, options: { input?: string }, command: Command) => {
        const context = contextOf(command);
        const started = await context.client().runs.start(agent, workflow, options.input !== undefined ? { input: options.input } : {});
        if (context.json) return printJson(started);
        printLine(started.runId);
        note(err().dim(`session ${started.sessionId}: agent-service events ${started.sessionId} --follow`));
      }),
    ['agent-service runs start support review --input "the customer wants a refund"'],
  );
  withExamples(runs, ['agent-service runs start support review --input "ticket 42"']);
}
