// approvals ls|show|answer
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable } from '../output.ts';

const STATUSES = ['unanswered', 'answered', 'expired'];

export function registerApprovals(program: Command): void {
  const approvals = program.command('approvals').description('Questions your agents asked you');
  withExamples(approvals, ['agent-service approvals ls', 'agent-service approvals answer apr_123 yes --note "go ahead"']);

  withExamples(
    approvals
      .command('ls')
      .alias('list')
      .description('Your approvals, newest first')
      .option('--status <status>', `only these: ${STATUSES.join(', ')}`)
      .option('-n, --limit <n>', 'at most this many', '20')
      .action(async (options: { status?: string; limit: string }, command: Command) => {
        const context = contextOf(command);
        if (options.status && !STATUSES.includes(options.status)) throw new UsageError(`--status is one of ${STATUSES.join(', ')}`);
        const limit = Number(options.limit);
        const list = [];
        const query = options.status ? { status: options.status as 'unanswered' } : {};
        for await (const approval of context.client().approvals.list(query)) {
          list.push(approval);
          if (list.length >= limit) break;
        }
        if (context.json) return printJson(list);
        printTable(
          ['ID', 'STATUS', 'QUESTION', 'OPTIONS', 'CREATED'],
          list.map((approval) => [
            approval.id,
            approval.status,
            cut(approval.question),
            approval.options.join('/'),
            age(approval.createdAt),
          ]),
          'No approvals.',
        );
      }),
    ['agent-service approvals ls --status unanswered'],
  );

  withExamples(
    approvals
      .command('show')
      .description('One approval: its question, options, answer and where it was sent')
      .argument('<id>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const approval = await context.client().approvals.retrieve(id);
        if (context.json) return printJson(approval);
        printFields([
          ['id', approval.id],
          ['status', approval.status],
          ['question', approval.question],
          ['options', approval.options.join(', ')],
          ['choice', approval.choice ?? undefined],
          ['note', approval.note ?? undefined],
          ['session', approval.sessionId ?? undefined],
          ['expires', approval.expiresAt],
        ]);
        for (const dispatch of approval.dispatches ?? []) {
          printLine(`  ${dispatch.provider ?? '?'}: ${dispatch.status ?? '?'}${dispatch.error ? ` (${dispatch.error})` : ''}`);
        }
      }),
    ['agent-service approvals show apr_123'],
  );

  withExamples(
    approvals
      .command('answer')
      .description('Answer an approval with one of its options')
      .argument('<id>')
      .argument('<choice>')
      .option('--note <text>', 'a note the agent reads with the choice')
      .action(async (id: string, choice: string, options: { note?: string }, command: Command) => {
        const context = contextOf(command);
        const answered = await context
          .client()
          .approvals.answer(id, { choice, ...(options.note !== undefined ? { note: options.note } : {}) });
        if (context.json) return printJson(answered);
        note(`Answered ${answered.choice}.`);
      }),
    ['agent-service approvals answer apr_123 refund --note "once"'],
  );
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
