// Follows one turn's stream to its end, printing it (or, under --json, one event per line), with
// Ctrl-C aborting the turn on the service (a second Ctrl-C leaves at once). The exit status says
// how it ended: 0 completed, 3 failed or aborted.
import type { Client, RelayedEvent, SessionEvent, TurnStream } from '@agent-service/sdk';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { note, printJsonLine } from '../output.ts';
import { spinner } from '../spinner.ts';
import { err } from '../style.ts';
import { TurnPrinter, type TurnPrinterOptions } from './print-events.ts';

export interface FollowOptions {
  json: boolean;
  onApproval?: TurnPrinterOptions['onApproval'];
  /** Every event as it comes, after it was printed. */
  onEvent?: (event: SessionEvent) => void;
}

/**
 * `stream` opens the turn's stream, given what to do with the events of the agents it calls (relayed:
 * their questions are shown as the turn's own).
 */
export async function followTurn(
  client: Client,
  sessionId: string,
  stream: TurnStream | ((onChildEvent: (relayed: RelayedEvent) => void) => TurnStream),
  options: FollowOptions,
): Promise<ExitCode> {
  const printer = new TurnPrinter({ sessionId, onApproval: options.onApproval });
  if (typeof stream === 'function') stream = stream((relayed) => (options.json ? printJsonLine(relayed) : printer.printRelayed(relayed)));
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    if (!options.json) note(err().dim('\nAborting the turn (Ctrl-C again to leave at once)…'));
    client.sessions.abort(sessionId).catch(() => process.exit(130));
  };
  process.on('SIGINT', onInterrupt);
  // Until the first event (the model's first words, most often), something shows the turn is alive.
  const waiting = spinner('Thinking…', { quiet: options.json });
  try {
    for await (const event of stream) {
      waiting.stop();
      if (options.json) printJsonLine(event);
      else printer.print(event);
      options.onEvent?.(event);
    }
    const end = await stream.done();
    printer.endLine();
    return end.type === 'turn.completed' ? EXIT.ok : EXIT.turnFailed;
  } finally {
    waiting.stop();
    process.off('SIGINT', onInterrupt);
  }
}
