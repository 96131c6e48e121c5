// keys ls|create|rm
import type { Command } from 'commander';
import type { CreateKeyBody } from '@agent-service/sdk';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { age, note, printJson, printLine, printTable } from '../output.ts';
import { err } from '../style.ts';

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('Your API keys');
  withExamples(keys, ['agent-service keys ls', 'agent-service keys create --name ci --scope read sessions:write']);

  withExamples(
    keys
      .command('ls')
      .alias('list')
      .description('Your keys, by prefix (never the keys themselves)')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { keys: list } = await context.client().keys.list();
        if (context.json) return printJson(list);
        printTable(
          ['ID', 'NAME', 'PREFIX', 'SCOPES', 'LAST USED'],
          list.map((key) => [key.id, key.name, `${key.prefix}…`, key.scopes.join(','), age(key.lastUsedAt)]),
        );
      }),
    ['agent-service keys ls'],
  );

  withExamples(
    keys
      .command('create')
      .description('Create a key; it is shown this once')
      .option('--name <name>', 'what it is for')
      .option('--scope <scope...>', 'narrow it to these scopes (default: all of yours)')
      .action(async (options: { name?: string; scope?: string[] }, command: Command) => {
        const context = contextOf(command);
        const body: CreateKeyBody = {
          ...(options.name ? { name: options.name } : {}),
          ...(options.scope ? { scopes: options.scope as CreateKeyBody['scopes'] } : {}),
        };
        const created = await context.client().keys.create(body);
        if (context.json) return printJson(created);
        printLine(created.key);
        note(err().dim(`${created.id} (${created.scopes.join(', ')}): shown this once, keep it safe`));
      }),
    ['agent-service keys create --name ci --scope read', 'agent-service keys create --json | jq -r .key'],
  );

  withExamples(
    keys
      .command('rm')
      .alias('delete')
      .description('Delete a key: it gets 401 from then on')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().keys.delete(id);
        if (context.json) return printJson({ deleted: id });
        note(`Deleted ${id}.`);
      }),
    ['agent-service keys rm key_123'],
  );
}
