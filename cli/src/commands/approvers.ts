// approvers ls|set|rm, approvers group ls|set|rm: the directory of people who may answer your approvals
// (docs/approvals.md, "Approvers and groups"). An approval names them as `me`, a name, or `group:<name>`.
import type { Command } from 'commander';
import type { PutApproverBody } from '@agent-service/sdk';
import { contextOf } from '../context.ts';
import { withExamples } from '../help.ts';
import { age, note, printJson, printTable } from '../output.ts';

interface SetOptions {
  email?: string;
  slackUser?: string;
  telegramChat?: string;
  webhookUrl?: string;
}

export function registerApprovers(program: Command): void {
  const approvers = program.command('approvers').description('People who may answer your approvals, and groups of them');
  withExamples(approvers, [
    'agent-service approvers set alice --email alice@example.com',
    'agent-service approvers group set oncall alice bob',
  ]);

  withExamples(
    approvers
      .command('ls')
      .alias('list')
      .description('Your approvers, with where each is asked and their groups')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { approvers: list } = await context.client().approvers.list();
        if (context.json) return printJson(list);
        printTable(
          ['NAME', 'EMAIL', 'SLACK', 'TELEGRAM', 'WEBHOOK', 'GROUPS', 'UPDATED'],
          list.map((approver) => [
            approver.name,
            approver.email,
            approver.slack?.userId,
            approver.telegram?.chatId,
            approver.webhook?.url,
            approver.groups.join(',') || '-',
            age(approver.updatedAt),
          ]),
          'No approvers yet.',
        );
      }),
    ['agent-service approvers ls'],
  );

  withExamples(
    approvers
      .command('set')
      .description('Add or replace an approver, with exactly the addresses given (none: they answer by a forwarded link)')
      .argument('<name>')
      .option('--email <address>', 'where the question is mailed')
      .option('--slack-user <id>', 'a Slack user id (U... or W...)')
      .option('--telegram-chat <id>', 'a Telegram chat id')
      .option('--webhook-url <url>', 'an http(s) URL the question is posted to')
      .action(async (name: string, options: SetOptions, command: Command) => {
        const context = contextOf(command);
        const body: PutApproverBody = {
          ...(options.email !== undefined ? { email: options.email } : {}),
          ...(options.slackUser !== undefined ? { slack: { userId: options.slackUser } } : {}),
          ...(options.telegramChat !== undefined ? { telegram: { chatId: options.telegramChat } } : {}),
          ...(options.webhookUrl !== undefined ? { webhook: { url: options.webhookUrl } } : {}),
        };
        const stored = await context.client().approvers.put(name, body);
        if (context.json) return printJson(stored);
        note(`Stored approver ${stored.name}.`);
      }),
    [
      'agent-service approvers set alice --email alice@example.com --slack-user U024BE7LH',
      'agent-service approvers set bob --telegram-chat -1001234567890',
    ],
  );

  withExamples(
    approvers
      .command('rm')
      .alias('delete')
      .description('Remove an approver (refused while a group has them: take them out of it first)')
      .argument('<name>')
      .action(async (name: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().approvers.delete(name);
        if (context.json) return printJson({ deleted: name });
        note(`Deleted approver ${name}.`);
      }),
    ['agent-service approvers rm alice'],
  );

  const groups = approvers
    .command('group')
    .alias('groups')
    .description('Named groups of your approvers (an approval names one as group:<name>)');
  withExamples(groups, ['agent-service approvers group set oncall alice bob', 'agent-service approvers group ls']);

  withExamples(
    groups
      .command('ls')
      .alias('list')
      .description('Your groups of approvers, with their members')
      .action(async (_options: object, command: Command) => {
        const context = contextOf(command);
        const { groups: list } = await context.client().approvers.groups.list();
        if (context.json) return printJson(list);
        printTable(
          ['NAME', 'MEMBERS', 'UPDATED'],
          list.map((group) => [group.name, group.members.join(','), age(group.updatedAt)]),
          'No groups of approvers yet.',
        );
      }),
    ['agent-service approvers group ls'],
  );

  withExamples(
    groups
      .command('set')
      .description('Create or replace a group: its members are names of your approvers, in the order they are asked')
      .argument('<name>')
      .argument('<member...>')
      .action(async (name: string, members: string[], _options: object, command: Command) => {
        const context = contextOf(command);
        const stored = await context.client().approvers.groups.put(name, { members });
        if (context.json) return printJson(stored);
        note(`Stored group ${stored.name}: ${stored.members.join(', ')}.`);
      }),
    ['agent-service approvers group set oncall alice bob'],
  );

  withExamples(
    groups
      .command('rm')
      .alias('delete')
      .description('Remove a group (its members stay approvers)')
      .argument('<name>')
      .action(async (name: string, _options: object, command: Command) => {
        const context = contextOf(command);
        await context.client().approvers.groups.delete(name);
        if (context.json) return printJson({ deleted: name });
        note(`Deleted group ${name}.`);
      }),
    ['agent-service approvers group rm oncall'],
  );
}
