// What one attempt of a model step holds while it runs, and gives back however it ends: its heartbeat,
// its abort watch, its delta writer, its chat span, its files, and its budget hold, which is charged
// what the attempt cost when no stored message carries that cost.
import type { Context } from '@temporalio/activity';
import type { Logger } from '../../lib/logger.ts';
import type { ChatSpan } from '../../lib/genai-spans.ts';
import type { AbortNotices, WatchedTurn } from './abort-notices.ts';
import { heldOrAborted, holdForCall, type BudgetHold, type HoldDeps } from './budget-hold.ts';
import type { ModelRef } from '../../contract/bundle.ts';
import type { DeltaCommits } from './delta-commits.ts';
import { DeltaWriter } from './delta-writer.ts';
import { OutputMeter } from '../../core/output-limit.ts';
import type { TurnFiles } from './turn-files.ts';
import { heartbeatEvery } from './step-deps.ts';

export interface AttemptSetup {
  context: Context;
  logger: Logger;
  abortNotices: AbortNotices | undefined;
  deltaCommits: DeltaCommits;
  deltaFlushMs: number;
  turnFiles: TurnFiles;
  limits: { stepOutputTokens: number; stepOutputBytes: number };
  step: { sessionId: string; turnId: string; messageId: string; attempt: number };
}

export class StepAttempt {
  readonly writer: DeltaWriter;
  readonly meter: OutputMeter;
  /** Stops the model call once its output passes a limit. */
  readonly overLimit = new AbortController();
  readonly told: WatchedTurn | undefined;
  readonly turnKey: string;
  chat: ChatSpan | undefined;
  /** Held against the budgets that apply until the call's cost is stored with its message (budget-hold.ts). */
  hold: BudgetHold | undefined;
  /** The attempt's cost is on the message it stored. */
  settled = false;
  /** The call's cost once known (null: nothing priced it). */
  cost: number | null | undefined;
  /** The provider began to answer, or the call was cut after it was sent: its prompt is billed. */
  answered = false;
  /** The next attempt or step sends the same files at once: the worker keeps them. */
  keepFiles = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly setup: AttemptSetup) {
    const { context, step } = setup;
    this.turnKey = `${step.sessionId}:${step.turnId}`;
    this.meter = new OutputMeter({ maxTokens: setup.limits.stepOutputTokens, maxBytes: setup.limits.stepOutputBytes });
    this.writer = new DeltaWriter(
      setup.deltaCommits,
      { sessionId: step.sessionId, messageId: step.messageId, attempt: step.attempt },
      setup.deltaFlushMs,
    );
    // No more often than the worker's heartbeat throttle sends (workers/create-worker.ts): each call costs
    // the event loop a trip through the SDK's heartbeat pipeline into the native worker, which drops what
    // comes faster. The step's writes do not heartbeat too.
    this.heartbeat = setInterval(() => context.heartbeat(), heartbeatEvery(context.info.heartbeatTimeoutMs));
    this.told = setup.abortNotices?.watch(step.sessionId, step.turnId);
  }

  /** The model call's abort: Temporal's cancellation, the turn's abort notice, or the output limit. */
  callSignal(): AbortSignal {
    return AbortSignal.any([this.setup.context.cancellationSignal, this.overLimit.signal, ...(this.told ? [this.told.signal] : [])]);
  }

  /**
   * Holds the call's most against the budgets that apply (budget-hold.ts), until its cost is stored with
   * its message; waits while they are full, unless the turn is aborted meanwhile.
   */
  async holdBudget(deps: HoldDeps, call: { userId: string; agentId: string; ref: ModelRef; inputTokens: number }): Promise<void> {
    const { context, step, limits } = this.setup;
    this.hold = await heldOrAborted(() =>
      holdForCall(deps, {
        ...call,
        sessionId: step.sessionId,
        prefix: `${step.sessionId}:${step.messageId}:`,
        execution: `${context.info.activityId}:${context.info.attempt}`,
        maxOutputTokens: limits.stepOutputTokens,
        signal: AbortSignal.any([context.cancellationSignal, ...(this.told ? [this.told.signal] : [])]),
        heartbeat: () => context.heartbeat(),
      }),
    );
  }

  async close(): Promise<void> {
    const { hold } = this;
    // An attempt that stored no message (or another attempt stored it first): charged its cost when it is
    // known, else what the provider billed for it (nothing if it never answered).
    if (hold && !this.settled) {
      await (
        this.cost !== undefined
          ? hold.settleAt(this.cost ?? 0)
          : hold.settleEnded({ providerAnswered: this.answered, outputTokens: this.meter.writtenTokens() })
      ).catch((error: unknown) => this.setup.logger.warn({ err: error, holdKey: hold.key }, 'could not settle a budget hold'));
    }
    this.chat?.close();
    clearInterval(this.heartbeat);
    this.told?.stop();
    this.writer.close();
    if (this.keepFiles) this.setup.turnFiles.keep(this.turnKey);
    else this.setup.turnFiles.release(this.turnKey);
  }
}
