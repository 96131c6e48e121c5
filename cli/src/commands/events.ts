// events <session> [--follow] [--after N]: a session's event log; with --follow, live until the
// session is idle again (its turns ended, nothing queued or waiting).
import type { Client, SessionEvent } from '@agent-service/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { printJsonLine, printLine } from '../output.ts';
import { describeEvent } from '../turn/describe-event.ts';
import { PendingTurns } from '../turn/pending-turns.ts';

interface EventsOptions {
  follow?: boolean;
  after?: string;
}

export function registerEvents(program: Command): void {
  const events = program
    .command('events')
    .description("Print a session's events, oldest first (under --json one event per line)")
    .argument('<session>', 'the session id')
    .option('-f, --follow', 'then print live events until the session is idle again (Ctrl-C stops earlier)')
    .option('--after <seq>', 'only events after this seq', '0')
    .action(async (sessionId: string, options: EventsOptions, command: Command) => {
      const context = contextOf(command);
      const after = Number(options.after);
      if (!Number.isInteger(after) || after < 0) throw new UsageError('--after takes a seq: 0, 1, 2, ...');
      const client = context.client();
      const print = (event: SessionEvent) => (context.json ? printJsonLine(event) : printLine(describeEvent(event)));

      // Following reads the whole log to know which turns are still to end, even the part --after skips.
      const turns = new PendingTurns();
      let lastSeq = 0;
      for await (const event of client.events(sessionId, { after: options.follow ? 0 : after })) {
        turns.apply(event);
        if (event.seq > after) print(event);
        lastSeq = event.seq;
      }
      if (!options.follow || (turns.empty && (await isIdle(client, sessionId)))) return;
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      try {
        for await (const event of client.events(sessionId, { after: lastSeq, follow: true, signal: stop.signal })) {
          print(event);
          turns.apply(event);
          if (PendingTurns.ends(event) && turns.empty && (await isIdle(client, sessionId))) return;
        }
      } catch (error) {
        if (!stop.signal.aborted) throw error;
      }
    });
  withExamples(events, [
    'agent-service events ses_123',
    'agent-service events ses_123 --follow            # until its turn ends',
    'agent-service events ses_123 --after 40 --json   # NDJSON for scripts',
  ]);
}

async function isIdle(client: Client, sessionId: string): Promise<boolean> {
  return (await client.sessions.retrieve(sessionId)).status === 'idle';
}
