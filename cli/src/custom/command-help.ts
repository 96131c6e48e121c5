// `agent-service run <agent> <command> --help`: what a custom command needs, read from its template
// with the shared resolver's own reading (contract/commands.ts), so the help cannot disagree with it.
import type { AgentDetail } from '@agent-service/sdk';
import { commandPlaceholders } from '../../../contract/commands.ts';
import { out } from '../style.ts';

export type CommandView = AgentDetail['commands'][number];

export function customCommandHelp(agent: string, view: CommandView): string {
  const style = out();
  const { positionals, flags, allArguments } = commandPlaceholders(view.template);
  const lines = [
    `Usage: agent-service run ${agent} ${view.name} ${view.usage}`.trimEnd(),
    '',
    `Template: ${view.template}`,
    '',
    'Placeholders:',
  ];
  for (let index = 1; index <= positionals; index++) lines.push(`  \${${index}}`.padEnd(16) + `argument ${index}`);
  if (allArguments) lines.push('  $ARGUMENTS'.padEnd(16) + 'every argument, joined by spaces');
  for (const flag of flags) lines.push(`  \${${flag}}`.padEnd(16) + `the flag --${flag} <value>`);
  if (positionals === 0 && flags.length === 0 && !allArguments) lines.push('  (none: the command takes no arguments)');
  const runs = [
    view.agent ? `on the agent ${view.agent}` : undefined,
    view.model ? `with the model ${view.model.providerId}/${view.model.modelId}` : undefined,
    view.subtask ? 'in a session of its own (subtask)' : undefined,
  ].filter(Boolean);
  if (runs.length > 0) lines.push('', `Runs ${runs.join(', ')}.`);
  lines.push('', style.dim('Options: -s, --session <id> sends into that session; --json prints the answer as JSON.'));
  return `${lines.join('\n')}\n`;
}
