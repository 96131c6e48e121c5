// send <agent|--session id> <text...>: one message, the reply streamed to stdout.
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { ExitWith, UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { note, printJson, printLine } from '../output.ts';
import { readStdin } from '../prompt.ts';
import { err } from '../style.ts';
import { followTurn } from '../turn/follow-turn.ts';
import { revisionNumber } from './revisions.ts';

interface SendOptions {
  session?: string;
  revision?: string;
  async?: boolean;
}

export function registerSend(program: Command): void {
  const send = program
    .command('send')
    .description('Send one message and stream the reply to stdout (a new session of the agent, or --session)')
    .argument('[agent]', 'the agent (with --session, this is the first word of the message)')
    .argument('[text...]', 'the message; "-" or nothing reads it from stdin')
    .option('-s, --session <id>', 'send into this session')
    .option('-r, --revision <n>', "start the new session on this revision of the agent (a staged one too), not the live one's")
    .option('--async', 'record the message and return at once (follow it with `events --follow`)')
    .action(async (agent: string | undefined, words: string[], options: SendOptions, command: Command) => {
      const context = contextOf(command);
      const parts = options.session ? [agent, ...words].filter((word): word is string => word !== undefined) : words;
      if (!options.session && !agent) throw new UsageError('Name an agent, or a session with --session');
      if (options.session && options.revision)
        throw new UsageError('--revision starts a new session: a session keeps the revision it started on');
      const revision = options.revision === undefined ? undefined : revisionNumber(options.revision);
      let text = parts.join(' ');
      if (text === '' || text === '-') {
        if (process.stdin.isTTY) throw new UsageError('No message: give it as arguments, or pipe it in');
        text = await readStdin();
        if (text.trim() === '') throw new UsageError('No message: stdin was empty');
      }
      const client = context.client();
      let sessionId = options.session;
      if (!sessionId) {
        sessionId = (await client.sessions.create(agent!, { revision })).id;
        if (!context.json) note(err().dim(`session ${sessionId} (continue with --session ${sessionId})`));
      }
      if (options.async) {
        const accepted = await client.sessions.sendAsync(sessionId, text);
        if (context.json) printJson({ sessionId, messageId: accepted.messageId });
        else printLine(accepted.messageId);
        return;
      }
      const code = await followTurn(client, sessionId, (onChildEvent) => client.sessions.send(sessionId!, text, { onChildEvent }), {
        json: context.json,
      });
      if (code !== 0) throw new ExitWith(code);
    });
  withExamples(send, [
    'agent-service send helper "Summarise the news in one line"',
    'agent-service send --session ses_123 "And in French?"',
    'git diff | agent-service send reviewer -            # the message from stdin',
    'agent-service send helper --json "hi" | jq -c .type  # one event per line',
    'agent-service send helper --async "Write the report" # returns the message id at once',
    'agent-service send helper --revision 4 "hi"          # try a staged revision before promoting it',
  ]);
}
