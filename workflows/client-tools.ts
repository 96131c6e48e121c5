// Custom tools run by the client: when a model step calls them, the turn waits, durably, for the
// client's results. Each call is answered on its own, in any order; the first answer wins and any other
// is refused (409). The API takes an answer itself, in PostgreSQL (store/client-tool-answers.ts), with no
// worker running, and the session workflow hands it to the waiting turn (StoredAnswers below); an API of
// an earlier release sends it as the `toolResult` Update instead. A call not answered within the
// client-tool timeout gets an error result the model reads: the turn's close of the wait is a row in
// PostgreSQL too, so an answer stored at the same moment either comes first (and is taken) or is refused.
// An abort of the turn ends the wait. Each answer is announced as its tool.result once the turn has it;
// the step's tool message, with every result, is written when all are in.
import { condition, defineUpdate, deprecatePatch, log, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import { DEFAULT_CLIENT_TOOL_TIMEOUT_MS } from '../lib/workflow-safe/turn-settings.ts';
import type { ToolCall, ToolResultPart, TurnInput } from '../core/turn-types.ts';
import { ClientToolCalls, type ToolResultInput } from '../core/client-tool-calls.ts';
import { PATCHES_OF_0_1_0 } from './release-patches.ts';

export type { ToolResultInput };

export interface ToolResultAck {
  toolCallId: string;
  status: 'answered';
}

export const toolResultUpdate = defineUpdate<ToolResultAck, [ToolResultInput]>('toolResult');

/**
 * Answers the API stored, on their way to the turn's wait: delivered as they come, and kept until the
 * turn's client tools take them (an answer may come before the turn has set them up).
 */
export class StoredAnswers {
  private take: ((answer: ToolResultInput) => void) | undefined;
  private readonly early: ToolResultInput[] = [];

  deliver(answer: ToolResultInput): void {
    if (this.take) this.take(answer);
    else this.early.push(answer);
  }

  attach(take: (answer: ToolResultInput) => void): void {
    this.take = take;
    for (const answer of this.early.splice(0)) take(answer);
  }
}

/**
 * Registers the turn's Update handler (once, at the start of the turn) and returns `awaitResults`,
 * which a step with client calls uses to wait for them.
 */
export function clientTools(input: TurnInput, stored: StoredAnswers, childSpent: (spent: NonNullable<ToolResultInput['spent']>) => void) {
  const book = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });
  // The API refuses a second answer once tool.result is written, so that write must follow the
  // acceptance: an activity's command is stored with it, where a local activity would run before the
  // server stored anything, and an Update the server then dropped (a refused workflow task) would
  // leave the call answered for readers and unanswered in the turn (workflows/approval.ts, the same).
  const afterAcceptance = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '200 milliseconds', maximumAttempts: 10 },
  });
  // Which answers are taken and which refused (core/client-tool-calls.ts).
  const calls = new ClientToolCalls();
  let toolMessageId = '';
  /** Answers being announced: the step's results are written only after them. */
  let announcing = 0;
  /** The step whose client calls the turn waits for now, if any. */
  let waitingFor: string | undefined;
  /** The turn has ended: answers still on their way are for nobody. */
  let over = false;
  /** Steps whose wait is over. */
  const waited = new Set<string>();
  const refuse = (toolCallId: string, why: string) => nonRetryable(FAILURE.toolCallNotAwaited, `The tool call "${toolCallId}" ${why}`);

  setHandler(
    toolResultUpdate,
    async (answer) => {
      // The step's result may still be on its way to this workflow while its tool.call events are readable.
      await condition(() => calls.isStepDone(answer.messageId));
      // Taken before the write: a second answer arriving meanwhile is refused, not recorded twice.
      const taken = calls.take(answer);
      if ('refused' in taken) throw refuse(answer.toolCallId, taken.refused);
      const { result } = taken;
      announcing += 1;
      try {
        deprecatePatch(PATCHES_OF_0_1_0.toolResultAfterAcceptance);
        await afterAcceptance.announceToolResult({ sessionId: input.sessionId, messageId: toolMessageId, result });
      } finally {
        announcing -= 1;
      }
      return { toolCallId: answer.toolCallId, status: 'answered' };
    },
    {
      validator: (answer) => {
        const why = calls.refusal(answer);
        if (why) throw refuse(answer.toolCallId, why);
      },
    },
  );

  /**
   * Calls of other agents, by `<messageId> <toolCallId>`: their answers are taken without an announcement
   * of their own (the caller's stream has `subagent.completed`), and their tool.result comes with the step's
   * tool message, one local activity fewer between a child's reply and the caller's next step.
   */
  const agentCallKeys = new Set<string>();

  /** Takes an answer and announces it as its tool.result; one taken already, or refused, does nothing. */
  async function takeAndAnnounce(answer: ToolResultInput): Promise<void> {
    const taken = calls.take(answer);
    if ('refused' in taken) return;
    // Taken once: what another agent's child turn spent counts in this turn's usage once.
    if (answer.spent) childSpent(answer.spent);
    if (agentCallKeys.has(`${answer.messageId} ${answer.toolCallId}`)) return;
    announcing += 1;
    try {
      // A local activity: PostgreSQL has decided the answer already, so nothing waits on Temporal's acceptance.
      await book.announceToolResult({
        sessionId: input.sessionId,
        messageId: toolMessageId,
        result: taken.result,
      });
    } finally {
      announcing -= 1;
    }
  }

  // An answer PostgreSQL took for this turn: taken once the turn waits for its step's calls (the step's
  // result, and its service calls, may still be on their way), unless the turn ends first. One after
  // another, so their tool.result events come in the order the answers were taken.
  let storedChain: Promise<void> = Promise.resolve();
  stored.attach((answer) => {
    // An answer for a step of another turn (one that ended before its answer was written) waits for nothing.
    if (!calls.hasStep(answer.messageId)) return;
    storedChain = storedChain
      .then(async () => {
        // A step whose wait is over (answered, or timed out) takes no more: it does not hold the next ones back.
        await condition(() => waitingFor === answer.messageId || waited.has(answer.messageId) || over);
        if (!over && !waited.has(answer.messageId)) await takeAndAnnounce(answer);
      })
      .catch((error: unknown) => {
        // Taken, its announcement failed: the step's tool message writes its tool.result with the others.
        log.warn('a client tool answer was not announced', { toolCallId: answer.toolCallId, error: String(error) });
      });
  });

  return {
    /** The turn has ended, whichever way. */
    ended(): void {
      over = true;
    },
    /** Whether this call (a client's, or another agent's) has its answer. */
    answered(messageId: string, toolCallId: string): boolean {
      return calls.hasResult(messageId, toolCallId);
    },
    /** A model step is about to run with this message id. */
    stepStarted(messageId: string): void {
      calls.stepStarted(messageId);
    },
    /** Its result is in: `calls` are the client calls it asked for (possibly none). */
    stepDone(messageId: string, stepCalls: readonly ToolCall[]): void {
      for (const call of stepCalls) if (call.executor === 'agent') agentCallKeys.add(`${messageId} ${call.toolCallId}`);
      calls.stepDone(messageId, stepCalls);
    },
    /**
     * Waits for the results of `calls` (the client calls, and calls of other agents, of step `messageId`),
     * announced under the tool message `resultsMessageId`; a client's call unanswered at the timeout gets
     * NO_CLIENT_RESULT. Another agent's call waits for its child's turn to end, however long (the child's
     * own waits, approvals and client tools, have their limits), or for this turn's abort.
     */
    async awaitResults(messageId: string, awaitedCalls: readonly ToolCall[], resultsMessageId: string): Promise<ToolResultPart[]> {
      toolMessageId = resultsMessageId;
      waitingFor = messageId;
      const turnId = input.turnId;
      const stepCalls = awaitedCalls.filter((call) => call.executor === 'client');
      const agentCalls = awaitedCalls.filter((call) => call.executor === 'agent');
      // The session waits for its client; while other agents answer it runs.
      const clientWaits = stepCalls.length > 0;
      if (clientWaits) await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: true });
      const timeoutMs = input.settings.clientToolTimeoutMs ?? DEFAULT_CLIENT_TOOL_TIMEOUT_MS;
      const allIn = !clientWaits || (await condition(() => calls.allAnswered(messageId, stepCalls), timeoutMs));
      if (!allIn) {
        deprecatePatch(PATCHES_OF_0_1_0.clientAnswersInPostgres);
        // Closed in PostgreSQL first: an answer stored before the close is taken (its hand-over may be
        // late), and none is stored after it.
        const before = await book.closeClientToolCalls({
          sessionId: input.sessionId,
          userId: input.userId,
          messageId,
          toolCallIds: stepCalls.map((call) => call.toolCallId),
        });
        for (const answer of before) await takeAndAnnounce(answer);
      }
      if (agentCalls.length > 0) await condition(() => calls.allAnswered(messageId, agentCalls));
      waitingFor = undefined;
      waited.add(messageId);
      const results = calls.close(messageId, awaitedCalls);
      await condition(() => announcing === 0);
      if (clientWaits) await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: false });
      return results;
    },
  };
}
