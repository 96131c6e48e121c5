// chat <agent> [--session id]: a conversation at the terminal. Each line is sent, the reply streams
// in as it comes, a question the agent asks this user is answered inline, and calls of client tools
// are shown as waiting. Ctrl-C aborts the running turn (the service keeps its partial text); a
// second Ctrl-C, or Ctrl-D at the prompt, leaves.
import readline from 'node:readline';
import type { Client, SessionEvent } from '@agent-service/sdk';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { UsageError } from '../exit-codes.ts';
import { withExamples } from '../help.ts';
import { terminalText } from '../terminal-text.ts';
import { note } from '../output.ts';
import { spinner } from '../spinner.ts';
import { err, out } from '../style.ts';
import { TurnPrinter } from '../turn/print-events.ts';
import { revisionNumber } from './revisions.ts';

type ApprovalRequested = Extract<SessionEvent, { type: 'approval.requested' }>;

export function registerChat(program: Command): void {
  const chat = program
    .command('chat')
    .description('Talk with an agent: the reply streams as it comes; Ctrl-C aborts it, a second Ctrl-C leaves')
    .argument('<agent>')
    .option('-s, --session <id>', 'carry on in this session (default: a new one)')
    .option('-r, --revision <n>', "start the new session on this revision of the agent (a staged one too), not the live one's")
    .action(async (agent: string, options: { session?: string; revision?: string }, command: Command) => {
      const context = contextOf(command);
      if (context.json) throw new UsageError('chat is a conversation for a person; scripts use `send --json` (one event per line)');
      if (options.session && options.revision)
        throw new UsageError('--revision starts a new session: a session keeps the revision it started on');
      const revision = options.revision === undefined ? undefined : revisionNumber(options.revision);
      const client = context.client();
      const sessionId = options.session ?? (await client.sessions.create(agent, { revision })).id;
      note(err().dim(`Chatting with ${agent} in ${sessionId}. Ctrl-C aborts a reply; Ctrl-C twice or Ctrl-D leaves.`));
      await new ChatLoop(client, sessionId).run();
    });
  withExamples(chat, [
    'agent-service chat helper',
    'agent-service chat helper --session ses_123   # carry on',
    'agent-service chat helper --revision 4        # a staged revision, before promoting it',
  ]);
}

class ChatLoop {
  private readonly rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
  private readonly queued: string[] = [];
  private turnRunning = false;
  private interrupts = 0;
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly sessionId: string,
  ) {}

  async run(): Promise<void> {
    this.rl.setPrompt(out().bold('› '));
    this.rl.on('SIGINT', () => this.interrupt());
    this.rl.on('line', (line) => {
      if (this.answering) return;
      this.queued.push(line);
      this.wake?.();
    });
    const closed = new Promise<void>((resolve) => this.rl.once('close', () => ((this.closed = true), resolve(), this.wake?.())));
    this.prompt();
    for (;;) {
      const line = await this.nextLine();
      if (line === undefined) break;
      if (line.trim() === '') {
        this.prompt();
        continue;
      }
      await this.turn(line);
      if (this.closed && this.queued.length === 0) break;
      this.prompt();
    }
    await closed;
  }

  /** The prompt, for a person: lines piped in (a script) get the replies alone. */
  private prompt(): void {
    if (process.stdin.isTTY) this.rl.prompt();
  }

  private wake: (() => void) | undefined;
  private answering = false;
  /** Questions are asked one at a time: readline drops a second question while one is pending. */
  private asking: Promise<void> = Promise.resolve();

  private async nextLine(): Promise<string | undefined> {
    while (this.queued.length === 0 && !this.closed) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.queued.shift();
  }

  private async turn(text: string): Promise<void> {
    this.turnRunning = true;
    this.interrupts = 0;
    const printer = new TurnPrinter({ sessionId: this.sessionId, onApproval: () => {} });
    const waiting = spinner('Thinking…');
    try {
      // A question of an agent this turn called is asked here too: the turn waits on it meanwhile.
      const stream = this.client.sessions.send(this.sessionId, text, {
        onChildEvent: (relayed) => {
          if (relayed.event.type !== 'approval.requested') return;
          note(err().dim(`agent ${terminalText(relayed.agent)} asks (session ${relayed.event.sessionId}):`));
          void this.ask(relayed.event);
        },
      });
      for await (const event of stream) {
        waiting.stop();
        printer.print(event);
        if (event.type === 'approval.requested') await this.ask(event);
      }
      printer.endLine();
    } catch (error) {
      waiting.stop();
      printer.endLine();
      note(err().red(`error: ${terminalText((error as Error).message)}`));
    } finally {
      waiting.stop();
      this.turnRunning = false;
      this.interrupts = 0;
    }
  }

  /** Asks `event` after the questions before it (the turn's own, and those of the agents it called). */
  private ask(event: ApprovalRequested): Promise<void> {
    const asked = this.asking.then(() => this.askApproval(event));
    this.asking = asked.catch(() => undefined);
    return asked;
  }

  /** The agent asks this user: ask at the prompt and answer it, as the dashboard would. */
  private async askApproval(event: ApprovalRequested): Promise<void> {
    const style = out();
    const options = event.options.join('/');
    for (;;) {
      this.answering = true;
      const answer = await new Promise<string>((resolve) =>
        this.rl.question(`${style.cyan('?')} ${event.question} ${style.dim(`[${options}]`)} `, resolve),
      ).finally(() => (this.answering = false));
      if (this.closed || !this.turnRunning) return;
      const [choice = '', ...rest] = answer.trim().split(/\s+/);
      const picked = event.options.find((option) => option.toLowerCase() === choice.toLowerCase()) ?? event.options[Number(choice) - 1];
      if (!picked) {
        note(err().yellow(`Answer with one of: ${options} (a note may follow the choice)`));
        continue;
      }
      try {
        await this.client.approvals.answer(event.approvalId, { choice: picked, ...(rest.length ? { note: rest.join(' ') } : {}) });
      } catch (error) {
        // Answered elsewhere first (another terminal, a link): the turn goes on with that answer.
        note(err().dim(`not answered here: ${terminalText((error as Error).message)}`));
      }
      return;
    }
  }

  private interrupt(): void {
    this.interrupts++;
    if (this.interrupts > 1) {
      process.stdout.write('\n');
      process.exit(130);
    }
    if (this.turnRunning) {
      note(err().dim('\nAborting the reply (Ctrl-C again leaves)…'));
      this.client.sessions
        .abort(this.sessionId)
        .catch((error: unknown) => note(err().red(`abort failed: ${terminalText((error as Error).message)}`)));
    } else {
      note(err().dim('\n(Ctrl-C again, or Ctrl-D, leaves)'));
      this.prompt();
    }
  }
}
