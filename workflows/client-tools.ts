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

export interface ToolResultInput {
  /** The assistant message whose tool call this answers (the `messageId` of its tool.call event). */
  messageId: string;
  toolCallId: string;
  /** The result, any JSON; or `error`, a message the model reads as the tool's failure. */
  output?: unknown;
  error?: string;
}

export interface ToolResultAck {
  toolCallId: string;
  status: 'answered';
}

export const toolResultUpdate = defineUpdate<ToolResultAck, [ToolResultInput]>('toolResult');

/** Patch: an answer is announced by an activity scheduled with the Update's acceptance (README: "Versioning workflows"). */
const ANNOUNCE_AFTER_ACCEPTANCE = 'tool-result-after-acceptance';

/** What the model reads when a call was never answered. */
export const NO_CLIENT_RESULT = 'No result from the client: the call was not answered in time.';

interface Awaited {
  call: ToolCall;
  result?: ToolResultPart;
}

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
  /** Model steps this turn has started, by their message id: an answer names one of them. */
  const steps = new Set<string>();
  /** Steps whose tool calls are known (their result came back). */
  const stepsDone = new Set<string>();
  /** Calls waiting for the client, by `<messageId> <toolCallId>`. */
  const waiting = new Map<string, Awaited>();
  /** Calls answered, timed out or abandoned: any later answer is refused. */
  const closed = new Set<string>();
  let toolMessageId = '';
  /** Answers being announced: the step's results are written only after them. */
  let announcing = 0;
  const key = (messageId: string, toolCallId: string) => `${messageId} ${toolCallId}`;
  const refuse = (toolCallId: string, why: string) => nonRetryable(FAILURE.toolCallNotAwaited, `The tool call "${toolCallId}" ${why}`);

  setHandler(
    toolResultUpdate,
    async (answer) => {
      const id = key(answer.messageId, answer.toolCallId);
      // The step's result may still be on its way to this workflow while its tool.call events are readable.
      await condition(() => stepsDone.has(answer.messageId));
      const entry = waiting.get(id);
      if (!entry || entry.result || closed.has(id)) throw refuse(answer.toolCallId, 'is not awaited from the client');
      const isError = answer.error !== undefined;
      const result: ToolResultPart = {
        type: 'tool-result',
        toolCallId: answer.toolCallId,
        toolName: entry.call.toolName,
        output: isError ? answer.error : answer.output,
        ...(isError ? { isError: true } : {}),
      };
      // Taken before the write: a second answer arriving meanwhile is refused, not recorded twice.
      entry.result = result;
      closed.add(id);
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
        const id = key(answer.messageId, answer.toolCallId);
        if (!steps.has(answer.messageId)) throw refuse(answer.toolCallId, "is not one of this turn's");
        if (closed.has(id)) throw refuse(answer.toolCallId, 'is answered already, or no longer awaited');
        if ((answer.output === undefined) === (answer.error === undefined)) {
          throw refuse(answer.toolCallId, 'needs exactly one of output and error');
        }
      },
    },
  );

  return {
    /** A model step is about to run with this message id. */
    stepStarted(messageId: string): void {
      steps.add(messageId);
    },
    /** Its result is in: `calls` are the client calls it asked for (possibly none). */
    stepDone(messageId: string, calls: readonly ToolCall[]): void {
      for (const call of calls) waiting.set(key(messageId, call.toolCallId), { call });
      stepsDone.add(messageId);
    },
    /**
     * Waits for the results of `calls` (the client calls of step `messageId`), announced under the tool
     * message `resultsMessageId`; a call unanswered at the timeout gets NO_CLIENT_RESULT.
     */
    async awaitResults(messageId: string, calls: readonly ToolCall[], resultsMessageId: string): Promise<ToolResultPart[]> {
      toolMessageId = resultsMessageId;
      const entries = calls.map((call) => waiting.get(key(messageId, call.toolCallId))!);
      const turnId = input.turnId;
      await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: true });
      const timeoutMs = input.settings.clientToolTimeoutMs ?? DEFAULT_CLIENT_TOOL_TIMEOUT_MS;
      await condition(() => entries.every((entry) => entry.result), timeoutMs);
      for (const entry of entries) closed.add(key(messageId, entry.call.toolCallId));
      await condition(() => announcing === 0);
      await book.setClientToolWait({ sessionId: input.sessionId, turnId, waiting: false });
      return entries.map(
        (entry) =>
          entry.result ?? {
            type: 'tool-result',
            toolCallId: entry.call.toolCallId,
            toolName: entry.call.toolName,
            output: NO_CLIENT_RESULT,
            isError: true,
          },
      );
    },
  };
}
