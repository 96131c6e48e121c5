// secrets ls|set|rm. A value never comes from the command line (shell history, `ps`): it is read
// from stdin or typed at a hidden prompt.
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printJson, printTable } from '../output.ts';
import { promptHidden, readStdin } from '../prompt.ts';

export function registerSecrets(program: Command): void {
  const secrets = program.command('secrets').description('Secrets your agents may read (granted in their bundles)');
  withExamples(secrets, ['agent-service secrets ls', 'agent-service secrets set OPENROUTER_API_KEY']);

  withExamples(
    secrets
      .command('ls')
      .alias('list')
      .description('Your secrets by name (never a value)')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { secrets: list } = await context.client().secrets.list();
        if (context.json) return printJson(list);
        printTable(
          ['KEY', 'HOSTS', 'UPDATED'],
          list.map((secret) => [secret.key, secret.hosts.join(',') || '-', age(secret.updatedAt)]),
          'No secrets yet.',
        );
      }),
    ['agent-service secrets ls'],
  );

  withExamples(
    secrets
      .command('set')
      .description('Store or replace a secret; the value is read from stdin, or typed at a hidden prompt')
      .argument('<key>', 'a name like an environment variable')
      .option(
        '--host <host>',
        "a host the secret may be sent to in a tool's request headers (repeat for more; *.example.com for subdomains)",
        (host: string, hosts: string[] = []) => [...hosts, host],
      )
      .option('--no-hosts', 'the secret may be sent to no host in tool headers (clears the hosts it had)')
      .action(async (key: string, options: { host?: string[]; hosts?: boolean }, command: Command) => {
        const context = contextOf(command);
        if (options.host && options.hosts === false) throw new UsageError('--host and --no-hosts do not go together');
        const value = process.stdin.isTTY ? await promptHidden(`Value of ${key}: `) : await readStdin();
        if (value === '') throw new UsageError('The value is empty');
        // Neither option: a new secret gets no hosts, a replaced one keeps its own.
        const hosts = options.host ?? (options.hosts === false ? [] : undefined);
        const stored = await context.client().secrets.put(key, value, hosts ? { hosts } : {});
        if (context.json) return printJson(stored);
        note(stored.hosts.length ? `Stored ${stored.key}; tools may send it to ${stored.hosts.join(', ')}.` : `Stored ${stored.key}.`);
      }),
    [
      'agent-service secrets set OPENROUTER_API_KEY              # asks for the value',
      'printf %s "$TOKEN" | agent-service secrets set HELPDESK_TOKEN',
      'printf %s "$GH" | agent-service secrets set GITHUB_TOKEN --host api.github.com',
    ],
  );

  withExamples(
    secrets
      .command('rm')
      .alias('delete')
      .description('Delete a secret')
      .argument('<key>')
      .action(async (key: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().secrets.delete(key);
        if (context.json) return printJson({ deleted: key });
        note(`Deleted ${key}.`);
      }),
    ['agent-service secrets rm HELPDESK_TOKEN'],
  );
}
