// limits: what the service lets you hold, all your keys together, and what you hold now (GET /limits).
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { printJson, printTable } from '../output.ts';

export function registerLimits(program: Command): void {
  withExamples(
    program
      .command('limits')
      .description('Your limits per user (keys, open streams, requests, schedules, approvals, storage, running turns) and their use')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const limits = await context.client().limits.retrieve();
        if (context.json) return printJson(limits);
        printTable(
          ['LIMIT', 'USED', 'OF', 'SETTING'],
          Object.entries(limits as Record<string, { used: number; limit: number; setting: string }>).map(
            ([name, { used, limit, setting }]) => [name, used, limit, setting],
          ),
        );
      }),
    ['agent-service limits', 'agent-service limits --json | jq .openApprovals'],
  );
}
