// agents ls|show|rm|revisions|budget
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable } from '../output.ts';
import { out } from '../style.ts';
import { describeTrigger } from './deploy.ts';
import { describeLive, describeShares } from './revisions.ts';

/** The changes `agents revisions` prints; the service lists up to 100, all of them under --json. */
const CHANGES_SHOWN = 10;

export function registerAgents(program: Command): void {
  const agents = program.command('agents').description('Your deployed agents');
  withExamples(agents, ['agent-service agents ls', 'agent-service agents show helper', 'agent-service agents revisions helper']);

  withExamples(
    agents
      .command('ls')
      .alias('list')
      .description('List your agents')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { agents: list } = await context.client().agents.list();
        if (context.json) return printJson(list);
        printTable(
          ['NAME', 'REVISION', 'MODEL', 'UPDATED'],
          list.map((agent) => [
            agent.name,
            agent.revision,
            agent.model ? `${agent.model.providerId}/${agent.model.modelId}` : '-',
            age(agent.updatedAt),
          ]),
          'No agents yet: deploy one with `agent-service deploy`.',
        );
      }),
    ['agent-service agents ls', 'agent-service agents ls --json | jq -r ".[].name"'],
  );

  withExamples(
    agents
      .command('show')
      .description("An agent's live revision: model, MCP and A2A URLs, triggers, custom commands, warnings")
      .argument('<name>')
      .action(async (name: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const agent = await context.client().agents.retrieve(name);
        if (context.json) return printJson(agent);
        const style = out();
        printFields([
          ['name', agent.name],
          ['id', agent.id],
          ['revision', agent.revision],
          // What a staged deploy or a canary adds: a newer revision not live, a share of new sessions elsewhere.
          ...(agent.latestRevision !== agent.revision ? [['latest', agent.latestRevision] as [string, number]] : []),
          ...(Object.keys(agent.traffic).length > 0 ? [['traffic', describeShares(agent.traffic)] as [string, string]] : []),
          ['model', `${agent.bundle.model.providerId}/${agent.bundle.model.modelId}`],
          ['updated', `${agent.updatedAt} (${age(agent.updatedAt)})`],
          // An MCP client reaches the agent here with a key as its Bearer token (docs/mcp.md).
          ['mcp', agent.mcpUrl],
          // An A2A client reads the agent's card under this URL (docs/a2a.md).
          ['a2a', agent.a2aUrl],
        ]);
        if (agent.triggers.length > 0) {
          printLine(style.bold('\nTriggers'));
          for (const trigger of agent.triggers) printLine(`  ${describeTrigger(trigger)}`);
        }
        if (agent.commands.length > 0) {
          printLine(style.bold('\nCommands') + style.dim(` (agent-service run ${agent.name} <command> ...)`));
          for (const custom of agent.commands) printLine(`  ${custom.name} ${custom.usage}`.trimEnd());
        }
        for (const warning of agent.warnings) note(`warning: ${warning}`);
      }),
    ['agent-service agents show helper', 'agent-service agents show helper --json | jq .bundle'],
  );

  withExamples(
    agents
      .command('revisions')
      .description("An agent's revisions, newest first, which serve new sessions, and the recent changes of what serves")
      .argument('<name>')
      .action(async (name: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const listed = await context.client().agents.revisions(name);
        if (context.json) return printJson(listed);
        printTable(
          ['REVISION', 'STATE', 'TRAFFIC', 'CREATED', 'WARNINGS'],
          listed.revisions.map((revision) => [
            revision.revision,
            revision.state,
            // Only the live revision and canaries get new sessions; a staged or retired one is reached by a pin.
            revision.state === 'live' || revision.state === 'canary' ? `${revision.trafficPercent}%` : '-',
            `${revision.createdAt} (${age(revision.createdAt)})`,
            revision.warnings.length,
          ]),
        );
        if (listed.changes.length === 0) return;
        const shown = listed.changes.slice(0, CHANGES_SHOWN);
        printLine(out().bold('\nChanges') + out().dim(' (newest first)'));
        printTable(
          ['KIND', 'REVISION', 'LIVE', 'TRAFFIC', 'KEY', 'WHEN'],
          shown.map((change) => [
            change.kind,
            change.revision,
            describeLive(change),
            describeShares(change.traffic),
            change.keyId,
            `${change.at} (${age(change.at)})`,
          ]),
        );
        if (listed.changes.length > shown.length) note(`${listed.changes.length - shown.length} older changes: --json lists them.`);
      }),
    ['agent-service agents revisions helper', 'agent-service agents revisions helper --json | jq .changes'],
  );

  withExamples(
    agents
      .command('rm')
      .alias('delete')
      .description('Delete an agent: its schedules and trigger URLs go, its sessions stay readable')
      .argument('<name>')
      .action(async (name: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().agents.delete(name);
        if (context.json) return printJson({ deleted: name });
        note(`Deleted ${name}.`);
      }),
    ['agent-service agents rm helper'],
  );

  withExamples(
    agents
      .command('budget')
      .description(
        "Set an agent's spend budget in USD per UTC calendar month (`none` removes it); once spent, its turns fail before calling the model",
      )
      .argument('<name>')
      .argument('<usd>', 'a number of US dollars, or `none`')
      .action(async (name: string, usd: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const monthlyUsd = usd === 'none' ? null : Number(usd);
        if (monthlyUsd !== null && !(Number.isFinite(monthlyUsd) && monthlyUsd >= 0 && /^\d+(\.\d+)?$/.test(usd.trim()))) {
          throw new UsageError(`Not a budget: "${usd}". Give US dollars (e.g. 25 or 7.50), or none.`);
        }
        const budget = await context.client().agents.setBudget(name, monthlyUsd);
        if (context.json) return printJson(budget);
        const spent = `$${budget.spentUsd.toFixed(2)} spent in ${budget.month}`;
        note(
          budget.monthlyUsd === null
            ? `${name} has no budget (${spent}).`
            : `${name}: $${budget.monthlyUsd.toFixed(2)} a month (${spent}).`,
        );
      }),
    ['agent-service agents budget helper 25', 'agent-service agents budget helper none'],
  );
}
