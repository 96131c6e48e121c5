// Custom tools run by the client: when a model step calls them, the turn waits, durably, for the
// client's results (POST /session/<id>/tool-result, an Update on this turn's workflow). Each call is
// answered on its own, in any order; the first answer wins and any other is refused (409). A call not
// answered within the client-tool timeout gets an error result the model reads; an abort of the turn
// ends the wait. Each answer is announced as its tool.result at once; the step's tool message, with
// every result, is written when all are in. An answer is announced only once Temporal has stored the
// Update's acceptance (see the handler), so a tool.result readers see is always one the turn has.
import { condition, defineUpdate, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { FAILURE, nonRetryable } from '../lib/failures.ts';
import { DEFAULT_CLIENT_TOOL_TIMEOUT_MS } from '../lib/turn-settings.ts';
import type { ToolCall, ToolResultPart, TurnInput } from '../core/turn-types.ts';
import { ClientToolCalls, type ToolResultInput } from '../core/client-tool-calls.ts';

export type { ToolResultInput };

export interface ToolResultAck {
  toolCallId: string;
  status: 'answered';
}

export const toolResultUpdate = defineUpdate<ToolResultAck, [ToolResultInput]>('toolResult');

/** Patch: an answer is announced by an activity scheduled with the Update's acceptance (docs/development.md, "Versioning workflows"). */
const ANNOUNCE_AFTER_ACCEPTANCE = 'tool-result-after-acceptance';

/**
 * Registers the turn's Update handler (once, at the start of the turn) and returns `awaitResults`,
 * which a step with client calls uses to wait for them.
 */
export function clientTools(input: TurnInput) {
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
        const announce = patched(ANNOUNCE_AFTER_ACCEPTANCE) ? afterAcceptance.announceToolResult : book.announceToolResult;
        await announce({ sessionId: input.sessionId, messageId: toolMessageId, result });
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

  return {
    /** A model step is about to run with this message id. */
    stepStarted(messageId: string): void {
      calls.stepStarted(messageId);
    },
    /** Its result is in: `calls` are the client calls it asked for (possibly none). */
    stepDone(messageId: string, stepCalls: readonly ToolCall[]): void {
      calls.stepDone(messageId, stepCalls);
    },
    /**
     * Waits for the results of `calls` (the client calls of step `messageId`), announced under the tool
     * message `resultsMessageId`; a call unanswered at the timeout gets NO_CLIENT_RESULT.
     */
    async awaitResults(messageId: string, stepCalls: readonly ToolCall[], resultsMessageId: string): Promise<ToolResultPart[]> {
      toolMessageId = resultsMessageId;
      const turnId = input.turnId;
      await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: true });
      const timeoutMs = input.settings.clientToolTimeoutMs ?? DEFAULT_CLIENT_TOOL_TIMEOUT_MS;
      await condition(() => calls.allAnswered(messageId, stepCalls), timeoutMs);
      const results = calls.close(messageId, stepCalls);
      await condition(() => announcing === 0);
      await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: false });
      return results;
    },
  };
}
