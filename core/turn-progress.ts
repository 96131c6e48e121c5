// The rules of one turn's agent loop, with no Temporal in them: the usage and cost it adds up, the
// steering messages its steps have read, and what follows each model step (the turn is over, one more
// step, the tools, or a structured reply to correct). The turn workflow (workflows/turn.ts) runs the
// steps and tools this decides on; the unit tests (test/unit/core/turn-progress.test.ts) drive it alone.
import type { TokenUsage } from '../contract/events.ts';
import type { StepResult, ToolResultPart, TurnOutcome } from './turn-types.ts';

export interface TurnTotals {
  usage: TokenUsage;
  costUsd: number | null;
}

/**
 * A turn's totals with one more step (or message) added: tokens add up; cost stays null until some
 * step has a price (a model without one costs nothing known, not zero). The turn workflow and the
 * store (turn.completed written with a turn's last step) both add up this way.
 */
export function addToTotals(totals: TurnTotals, usage: TokenUsage | null | undefined, costUsd: number | null | undefined): TurnTotals {
  const own = usage ?? { inputTokens: 0, outputTokens: 0 };
  // The cache counts appear once some step reported them (a turn on a provider without a cache has none).
  const cached = (key: 'cacheReadTokens' | 'cacheWriteTokens') =>
    totals.usage[key] === undefined && own[key] === undefined ? {} : { [key]: (totals.usage[key] ?? 0) + (own[key] ?? 0) };
  return {
    usage: {
      inputTokens: totals.usage.inputTokens + own.inputTokens,
      outputTokens: totals.usage.outputTokens + own.outputTokens,
      ...cached('cacheReadTokens'),
      ...cached('cacheWriteTokens'),
    },
    costUsd: costUsd === null || costUsd === undefined ? totals.costUsd : (totals.costUsd ?? 0) + costUsd,
  };
}

/** What the turn does after a model step. */
export type StepVerdict =
  /** The step wrote turn.completed with its final answer: the turn is over. */
  | { next: 'completed' }
  /** A final answer: the turn completes (its end still to be written). */
  | { next: 'answered' }
  /** A message steered the turn while the step ran, after it read the conversation: one more step reads it. */
  | { next: 'step' }
  /** The tools the step called run, then another step. */
  | { next: 'tools' }
  /**
   * A structured reply (jsonReply) that was not valid: recorded as attempt `attempt`; with attempts
   * left the model is told why and steps again, without the turn fails with `message`.
   */
  | { next: 'invalid-reply'; attempt: number; attemptsLeft: number; errors: string[]; message: string };

export class TurnProgress {
  private totals: TurnTotals = { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null };
  /** The text of the last step: the turn's answer (a workflow graph passes it on). */
  private reply = '';
  /** Structured replies (jsonReply) that were not valid, this turn. */
  private invalidReplies = 0;
  /** Messages that steer this turn, in the order they came, and those a step has read. */
  private readonly steers: string[] = [];
  private readonly steersRead = new Set<string>();
  /** Every user message of the turn a step read. */
  private readonly read = new Set<string>();
  /** The step that wrote turn.completed found no webhook subscription to session.completed. */
  private completionUnsubscribed = false;
  private answerHandedBack = false;

  constructor(private readonly maxSteps: number) {}

  /** A message joined the turn (ifBusy=steer); the same message twice counts once. */
  steered(messageId: string): void {
    if (!this.steers.includes(messageId)) this.steers.push(messageId);
  }

  /** The totals before the next step: it writes turn.completed with them and its own, if it answers. */
  totalsSoFar(): TurnTotals {
    return { usage: { ...this.totals.usage }, costUsd: this.totals.costUsd };
  }

  /** A compaction ran for a step of this turn: what it cost counts with the turn's steps. */
  compacted(usage: TokenUsage, costUsd: number | null): void {
    this.totals = addToTotals(this.totals, usage, costUsd);
  }

  /** Another agent's call ended: what its child's turn spent counts with the turn's steps. */
  childTurnSpent(usage: TokenUsage, costUsd: number | null): void {
    this.totals = addToTotals(this.totals, usage, costUsd);
  }

  /** Takes step `step`'s result in and says what follows. */
  afterStep(result: StepResult, step: number): StepVerdict {
    this.totals = addToTotals(this.totals, result.usage, result.costUsd);
    this.reply = result.text;
    for (const id of result.turnUserMessageIds ?? []) {
      this.read.add(id);
      if (this.steers.includes(id)) this.steersRead.add(id);
    }
    // Its end is written: a steering message it did not read runs as a turn of its own (the session's rule).
    if (result.turnCompleted) {
      this.completionUnsubscribed = result.completionUnsubscribed === true;
      this.answerHandedBack = result.answerHandedBack === true;
      return { next: 'completed' };
    }
    if (result.toolCalls.length > 0) return { next: 'tools' };
    if (this.steers.some((id) => !this.steersRead.has(id)) && step < this.maxSteps) return { next: 'step' };
    if (!result.replyErrors) return { next: 'answered' };
    this.invalidReplies += 1;
    const attemptsLeft = (result.replyRetries ?? 0) - this.invalidReplies + 1;
    const attempts = `${this.invalidReplies} attempt${this.invalidReplies === 1 ? '' : 's'}`;
    return {
      next: 'invalid-reply',
      attempt: this.invalidReplies,
      attemptsLeft,
      errors: result.replyErrors,
      message: `The reply did not match jsonReply.schema after ${attempts}: ${result.replyErrors.join('; ')}`,
    };
  }

  /** What the turn returns to its session. */
  outcome(status: TurnOutcome['status']): TurnOutcome {
    const { usage, costUsd } = this.totals;
    if (status !== 'completed') return { status, usage, costUsd };
    return {
      status,
      usage,
      costUsd,
      reply: this.reply,
      ...(this.steersRead.size > 0 ? { steered: [...this.steersRead] } : {}),
      ...(this.read.size > 0 ? { read: [...this.read] } : {}),
      ...(this.completionUnsubscribed ? { completionUnsubscribed: true as const } : {}),
      ...(this.answerHandedBack ? { answerHandedBack: true as const } : {}),
    };
  }
}

/** A step's tool results in the order of its calls (client results come in last, in any order). */
export function inCallOrder(results: readonly ToolResultPart[], calls: readonly { toolCallId: string }[]): ToolResultPart[] {
  const order = calls.map((call) => call.toolCallId);
  return [...results].sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
}
