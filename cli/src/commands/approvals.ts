// approvals ls|show|answer|delegate. An approval a team answers (created with `approvers`) shows its rule, its
// tally and each approver's vote; answering it may count a vote that does not decide it yet (202), and
// `delegate` hands one approver's vote to another approver of the directory.
import type { Command } from 'commander';
import type { Answered, ApprovalView } from '@agent-service/sdk';
import type { ResponseOf } from '../../../contract/operations/operation.ts';
import type { answerApproval } from '../../../contract/operations/approvals.ts';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable } from '../output.ts';
import { out } from '../style.ts';
import { terminalText } from '../terminal-text.ts';

/** A vote that counted without deciding (202); the SDK's `answer` is typed with the 200 only. */
type VoteCounted = ResponseOf<typeof answerApproval, 202>;

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
      .description("One approval: its question, options, answer, where it was sent and, for a team's, each approver's vote")
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
          ...teamFields(approval),
        ]);
        printSeats(approval);
        // Below a team's approvers, the channels' lines get a heading of their own.
        if (approval.approvers?.length && approval.dispatches?.length) printLine(out().dim('sent over:'));
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
        // The SDK types the 200 only; a vote that counted without deciding is a 202 of its own shape.
        const answered = (await context
          .client()
          .approvals.answer(id, { choice, ...(options.note !== undefined ? { note: options.note } : {}) })) as Answered | VoteCounted;
        if (context.json) return printJson(answered);
        if (answered.status === 'unanswered') {
          // A team's approval: this vote counted, the approval still waits for the quorum.
          const votes = answered.tally[answered.choice] ?? 0;
          note(terminalText(`Vote recorded: ${answered.choice} ${votes} of ${answered.quorum}; waiting on the others.`));
          return;
        }
        if (answered.approver === undefined || !answered.tally) return note(`Answered ${answered.choice}.`);
        const whose = answered.approver === 'me' ? 'your' : `${answered.approver}'s`;
        note(terminalText(`Answered ${answered.choice}: ${whose} vote decided it (${tallyText([], answered.tally)}).`));
      }),
    ['agent-service approvals answer apr_123 refund --note "once"'],
  );

  withExamples(
    approvals
      .command('delegate')
      .description("Hand an approver's vote (one who has not voted) to another approver of your directory")
      .argument('<id>')
      .requiredOption('--from <name>', 'the approver who hands on their vote ("me" for yours)')
      .requiredOption('--to <name>', 'the approver of your directory who votes in their place')
      .action(async (id: string, options: { from: string; to: string }, command: Command) => {
        const context = contextOf(command);
        const approval = await context.client().approvals.delegate(id, { from: options.from, to: options.to });
        if (context.json) return printJson(approval);
        note(terminalText(`Handed ${options.from}'s vote to ${options.to}: they are asked now, and vote in their place.`));
        // Where it stands now: who sits (the one who handed on, marked), the rule and the tally.
        printFields(teamFields(approval));
        printSeats(approval);
      }),
    ['agent-service approvals delegate apr_123 --from dave --to erin'],
  );
}

/** "approve 1, deny 0": the votes per option, in the options' order (any other counted option after). */
function tallyText(options: string[], tally: Record<string, number>): string {
  const names = [...options, ...Object.keys(tally).filter((name) => !options.includes(name))];
  return names.map((name) => `${name} ${tally[name] ?? 0}`).join(', ');
}

/** The rule, the tally and who decided, for an approval a team answers; nothing for another. */
function teamFields(approval: ApprovalView): Array<[string, string | undefined]> {
  if (approval.quorum === undefined) return [];
  // An approver who handed their vote on no longer counts among those who vote.
  const sitting = approval.approvers?.filter((seat) => !seat.delegatedTo || seat.vote !== null);
  const seats = sitting?.length;
  const refusal = approval.denyWins && approval.refusingOption ? ` (a ${approval.refusingOption} decides)` : '';
  return [
    ['quorum', `${approval.quorum}${seats !== undefined ? ` of ${seats}` : ''}${refusal}`],
    ['tally', approval.tally ? tallyText(approval.options, approval.tally) : undefined],
    ...(approval.decidedBy ? [['decided by', approval.decidedBy] as [string, string]] : []),
    // Each approver on a line of their own below this one (printSeats).
    ...(sitting ? [['approvers', `${sitting.filter((seat) => seat.vote).length} of ${sitting.length} voted`] as [string, string]] : []),
  ];
}

/** One line per approver: their vote (how, when, the note), or that it is awaited. */
function printSeats(approval: ApprovalView): void {
  const seats = approval.approvers;
  if (!seats?.length) return;
  const width = Math.max(...seats.map((seat) => terminalText(seat.name).length));
  for (const seat of seats) {
    const vote = seat.vote;
    const added = seat.addedBy === 'request' ? '' : ` [added by ${seat.addedBy}]`;
    const shown = vote
      ? `${vote.choice} (via ${vote.via}, ${age(vote.votedAt)})${vote.note !== null ? ` ${JSON.stringify(vote.note)}` : ''}`
      : seat.delegatedTo
        ? `handed to ${seat.delegatedTo}`
        : approval.status === 'unanswered'
          ? 'waiting'
          : 'did not vote';
    printLine(`  ${terminalText(seat.name).padEnd(width)}  ${terminalText(shown)}${added}`);
  }
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
