// A turn's events as a person follows them: the reply's text on stdout as it streams, everything
// else (tools, approvals, retries, the end) as short notes on stderr, so `send ... > reply.txt`
// keeps only the reply.
import type { RelayedEvent, SessionEvent } from '@agent-service/sdk';
import { err } from '../style.ts';
import { terminalText } from '../terminal-text.ts';

const MAX_SHOWN = 120;

export interface TurnPrinterOptions {
  /** Called for a question this user is asked (chat answers it inline; send tells how). */
  onApproval?: (event: Extract<SessionEvent, { type: 'approval.requested' }>) => void;
  /** How to tell the person to answer a client tool's call (chat and send differ). */
  sessionId: string;
}

export class TurnPrinter {
  /** Whether the cursor of stdout is in the middle of a line of reply. */
  private midLine = false;

  constructor(private readonly options: TurnPrinterOptions) {}

  /**
   * An event of an agent the turn called, relayed: its questions to this user are shown (or asked) as
   * the turn's own are; the rest is the child's business (`sessions show` has it).
   */
  printRelayed(relayed: RelayedEvent): void {
    if (relayed.event.type !== 'approval.requested') return;
    this.endLine();
    this.note(err().dim(`agent ${terminalText(relayed.agent)} asks (session ${relayed.event.sessionId}):`));
    this.print(relayed.event);
  }

  print(event: SessionEvent): void {
    const style = err();
    switch (event.type) {
      case 'message.part.delta':
        // The reply is a model's text: on a terminal it is shown as text; a pipe gets it as it came.
        process.stdout.write(process.stdout.isTTY ? terminalText(event.delta) : event.delta);
        this.midLine = !event.delta.endsWith('\n');
        return;
      case 'step.retry':
        this.note(style.yellow(`(the model step is retried, attempt ${event.attempt}: its text so far is dropped)`));
        return;
      case 'tool.call':
        if (event.executor === 'client') {
          this.note(
            style.yellow(`⧗ waiting for your tool ${terminalText(event.toolName)}(${shorten(event.input)})`) +
              style.dim(` — answer call ${event.toolCallId} with POST /session/${this.options.sessionId}/tool-result`),
          );
        } else this.note(style.dim(`→ ${terminalText(event.toolName)}(${shorten(event.input)})`));
        return;
      case 'tool.result':
        this.note(
          style.dim(`← ${terminalText(event.toolName)}: `) +
            (event.isError ? style.red(shorten(event.output)) : style.dim(shorten(event.output))),
        );
        return;
      case 'subagent.started':
        this.note(style.dim(`⇢ agent ${terminalText(event.agent)} works in session ${event.childSessionId}`));
        return;
      case 'subagent.failed':
        this.note(style.red(`✗ agent ${terminalText(event.agent)} ${event.status}: ${terminalText(event.error)}`));
        return;
      case 'subagent.waiting':
        this.note(
          style.yellow(
            `⏸ agent ${terminalText(event.agent)} waits on ${event.on === 'approval' ? 'a question to you' : "a client's tool results"} ` +
              `in session ${event.waitingSessionId} (agent-service sessions show ${event.waitingSessionId})`,
          ),
        );
        return;
      case 'turn.queued':
        this.note(style.yellow(`(waiting: your user already runs ${event.limit} turns at once; this one starts when one ends)`));
        return;
      case 'session.compacted':
        this.note(style.dim(`(the conversation was compacted: about ${event.tokensBefore} tokens down to ${event.tokensAfter})`));
        return;
      case 'reply.invalid':
        this.note(style.yellow(`(the reply did not match its schema: ${terminalText(event.errors.join('; '))}; asked again)`));
        return;
      case 'approval.requested':
        this.endLine();
        if (this.options.onApproval) this.options.onApproval(event);
        else
          this.note(
            `${style.cyan('?')} ${terminalText(event.question)} ${style.dim(`[${terminalText(event.options.join('/'))}]`)}\n` +
              style.dim(`  answer: agent-service approvals answer ${event.approvalId} <${terminalText(event.options.join('|'))}>`),
          );
        return;
      case 'approval.answered':
        this.note(
          style.dim(
            terminalText(
              `✓ answered ${event.choice}${event.note ? ` (${event.note})` : ''} via ${event.via}${event.approver ? ` by ${event.approver}` : ''}`,
            ),
          ),
        );
        return;
      case 'approval.escalated':
        this.note(style.dim(terminalText(`… no decision yet: asked ${event.approvers.join(', ')} too`)));
        return;
      case 'approval.delegated':
        this.note(style.dim(terminalText(`… ${event.from} handed their vote to ${event.to}`)));
        return;
      case 'approval.voted':
        this.note(
          style.dim(terminalText(`… ${event.approver} voted ${event.choice} via ${event.via} (${tallyLine(event.tally, event.quorum)})`)),
        );
        return;
      case 'approval.expired':
        this.note(style.yellow('the question expired unanswered'));
        return;
      case 'turn.failed':
        this.note(style.red(`✗ the turn failed: ${terminalText(event.error)}`));
        return;
      case 'turn.aborted':
        this.note(style.yellow('■ aborted'));
        return;
      case 'turn.completed':
        this.endLine();
        return;
      default:
        return;
    }
  }

  /** Ends the reply's line so the next output starts on its own. */
  endLine(): void {
    if (this.midLine) process.stdout.write('\n');
    this.midLine = false;
  }

  private note(text: string): void {
    // On a terminal stdout and stderr share the screen: a note must not land mid-sentence.
    if (process.stdout.isTTY) this.endLine();
    process.stderr.write(`${text}\n`);
  }
}

function shorten(value: unknown): string {
  const text = terminalText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** "approve 1/2, deny 0/2": each option's votes against the quorum. */
function tallyLine(tally: Record<string, number>, quorum: number): string {
  return Object.entries(tally)
    .map(([option, votes]) => `${option} ${votes}/${quorum}`)
    .join(', ');
}
