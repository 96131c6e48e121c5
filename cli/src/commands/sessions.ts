// sessions ls|show|fork|abort|revert|regenerate|compact
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { ExitWith, UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { age, note, printFields, printJson, printLine, printTable } from '../output.ts';
import { out } from '../style.ts';
import { followTurn } from '../turn/follow-turn.ts';

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description("An agent's sessions (conversations)");
  withExamples(sessions, ['agent-service sessions ls helper', 'agent-service sessions show ses_123']);

  withExamples(
    sessions
      .command('ls')
      .alias('list')
      .description("An agent's sessions, newest first")
      .argument('<agent>')
      .option('-n, --limit <n>', 'at most this many', '20')
      .action(async (agent: string, options: { limit: string }, command: Command) => {
        const context = contextOf(command);
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit takes a positive number');
        const list = [];
        for await (const session of context.client().sessions.list(agent, { limit: Math.min(limit, 100) })) {
          list.push(session);
          if (list.length >= limit) break;
        }
        if (context.json) return printJson(list);
        printTable(
          ['ID', 'STATUS', 'REVISION', 'COST', 'UPDATED'],
          list.map((session) => [session.id, session.status, session.revision, costOf(session.usage.costUsd), age(session.updatedAt)]),
          `No sessions of ${agent} yet: start one with \`agent-service chat ${agent}\`.`,
        );
      }),
    ['agent-service sessions ls helper', 'agent-service sessions ls helper --limit 100 --json'],
  );

  withExamples(
    sessions
      .command('show')
      .description('A session: its status, usage and conversation')
      .argument('<session>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const session = await context.client().sessions.retrieve(id);
        if (context.json) return printJson(session);
        const style = out();
        printFields([
          ['session', session.id],
          ['status', session.status],
          ['revision', session.revision],
          ['tokens', tokensOf(session.usage)],
          ['cost', costOf(session.usage.costUsd)],
          ['forked from', session.forkedFrom ?? undefined],
          [
            'parent',
            session.parentSessionId
              ? `${session.parentSessionId}${session.parentToolCallId ? ` (call ${session.parentToolCallId})` : ''}`
              : undefined,
          ],
        ]);
        // The sessions it opened (other agents' calls, subtasks): the tree, one level at a time.
        if (session.childSessions && session.childSessions.length > 0) {
          printLine(`\n${style.bold('children')}`);
          for (const child of session.childSessions)
            printLine(
              `  ${child.id}  ${child.agent}  ${child.status}${child.parentToolCallId ? style.dim(`  call ${child.parentToolCallId}`) : ''}`,
            );
        }
        for (const message of session.messages) {
          const text = message.parts
            .map((part) =>
              part.type === 'compaction'
                ? `[a summary of the conversation through ${part.throughMessageId}, in place of which the model reads:]\n`
                : 'text' in part && typeof part.text === 'string'
                  ? part.text
                  : `[${String(part.type)}]`,
            )
            .join('');
          printLine(
            `\n${style.bold(message.role)} ${style.dim(`${message.id}${message.status === 'complete' ? '' : ` (${message.status})`}`)}`,
          );
          printLine(text);
        }
      }),
    ['agent-service sessions show ses_123', 'agent-service sessions show ses_123 --json | jq ".messages | length"'],
  );

  withExamples(
    sessions
      .command('fork')
      .description('A new session holding a copy of this conversation so far')
      .argument('<session>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const fork = await context.client().sessions.fork(id);
        if (context.json) return printJson(fork);
        printLine(fork.id);
      }),
    ['agent-service sessions fork ses_123'],
  );

  withExamples(
    sessions
      .command('abort')
      .description('Stop the running turn (it ends turn.aborted, keeping its partial text) and drop queued ones')
      .argument('<session>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const result = await context.client().sessions.abort(id);
        if (context.json) return printJson(result);
        note(result.aborted ? 'Aborted.' : 'Nothing was running.');
      }),
    ['agent-service sessions abort ses_123'],
  );

  withExamples(
    sessions
      .command('revert')
      .description('Take a message and everything after it out of the conversation')
      .argument('<session>')
      .argument('<message>', 'the first message to take out')
      .action(async (id: string, messageId: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const result = await context.client().sessions.revert(id, messageId);
        if (context.json) return printJson(result);
        note(`Reverted ${result.reverted.length} message${result.reverted.length === 1 ? '' : 's'}.`);
      }),
    ['agent-service sessions revert ses_123 msg_456'],
  );

  withExamples(
    sessions
      .command('regenerate')
      .description('Run the turn of an assistant reply again; the new reply streams to stdout')
      .argument('<session>')
      .argument('<message>', 'the assistant reply to replace')
      .action(async (id: string, messageId: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const client = context.client();
        const code = await followTurn(client, id, client.sessions.regenerate(id, messageId), { json: context.json });
        if (code !== 0) throw new ExitWith(code);
      }),
    ['agent-service sessions regenerate ses_123 msg_789'],
  );

  withExamples(
    sessions
      .command('compact')
      .description("Summarise the conversation's older part now; the model is sent the summary from then on")
      .argument('<session>')
      .action(async (id: string, _options: object, command: Command) => {
        const context = contextOf(command);
        const result = await context.client().sessions.compact(id);
        if (context.json) return printJson(result);
        if (!result.compacted) return note('Nothing to compact: the conversation is too short to summarise any of it.');
        note(
          `Compacted: about ${result.tokensBefore} tokens down to ${result.tokensAfter}, through message ${result.throughMessageId} ` +
            `(summary ${result.summaryMessageId}, ${costOf(result.costUsd)}).`,
        );
      }),
    ['agent-service sessions compact ses_123'],
  );
}

function costOf(costUsd: number | undefined | null): string {
  return typeof costUsd === 'number' ? `$${costUsd.toFixed(4)}` : '-';
}

/** `1,200 in (800 from cache), 40 out`: what the provider's prompt cache served shown when it served any. */
function tokensOf(usage: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number }): string {
  const cached = usage.cacheReadTokens ? ` (${usage.cacheReadTokens} from cache)` : '';
  return `${usage.inputTokens ?? 0} in${cached}, ${usage.outputTokens ?? 0} out`;
}
