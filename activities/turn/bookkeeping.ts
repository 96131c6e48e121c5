// Activities that record a turn's progress: its start, its tool results, its end. Each is one
// transaction and idempotent, because Temporal may run an activity again after a crash.
import { Context } from '@temporalio/activity';
import { announceTurnAbort } from '../../store/turn-aborts.ts';
import { announceWaitToCallers } from '../../store/agent-call-waits.ts';
import { inTransaction } from '../../store/db.ts';
import { appendEventOnce, appendEvents, lockedSessionHasEvent, seqOfEvent } from '../../store/events.ts';
import {
  endStreamingMessage,
  recordInvalidReply,
  recordToolResults,
  recordUserMessage,
  streamedText,
  streamingMessageIds,
  toolResultEvent,
} from '../../store/messages.ts';
import { moveSessionStatus } from '../../store/sessions.ts';
import { MessageNotFoundError, NotAnAssistantMessageError, revertFrom, SessionBusyError, type RevertOutcome } from '../../store/revert.ts';
import { FAILURE, nonRetryable } from '../../lib/workflow-safe/failures.ts';
import { jsonReplyFeedback } from './json-reply.ts';
import { TERMINAL_TURN_EVENTS, type MessagePart, type NewEvent, type TokenUsage } from '../../contract/events.ts';
import type { ToolResultPart } from '../../core/turn-types.ts';
import type { RecordedSend } from '../../core/session-turns.ts';
import { isDataException } from '../../store/data-errors.ts';
import { recordSubtaskReply, type SubtaskReply } from '../../store/subtask-replies.ts';
import { turnEnd } from './turn-metrics.ts';
import { forgetSessionStepWaiters } from '../../store/step-slots.ts';
import { detachFromTurn, replyTargetOf, takeInbox } from '../../store/session-inbox.ts';
import { handBackStranded } from '../agent-call-hand-back.ts';
import { answerReplayedClientCalls } from './eval-replay-client-tools.ts';
import { startTaskNotifications, type NotifyDeps } from './task-notifications.ts';
import { hasPushConfigs, insertPushDeliveries, type RecordedPush } from '../../store/a2a-push.ts';
import { awaitedClientToolCalls } from '../../store/tool-calls.ts';
import type { InboxItem } from '../../core/session-turns.ts';
import type { ToolResultInput } from '../../core/client-tool-calls.ts';
import { closeClientToolCalls } from '../../store/client-tool-answers.ts';

/** What a turn left without its end by a terminated session run says when the next send finds it. */
export const STRANDED_TURN_ERROR = 'The turn stopped before it finished (its session workflow was terminated or timed out)';

export function turnBookkeeping(deps: NotifyDeps) {
  const { db } = deps;
  /** Ends a turn that failed or was aborted. A message still streaming keeps the text it had reached. */
  async function endTurn(input: {
    sessionId: string;
    turnId: string;
    userMessageId?: string;
    outcome: 'failed' | 'aborted';
    error?: string;
  }): Promise<void> {
    await forgetSessionStepWaiters(db, input.sessionId);
    const streaming = await streamingMessageIds(db, input.sessionId, input.userMessageId ?? input.turnId);
    const salvaged = await Promise.all(streaming.map(async (id) => ({ id, text: await streamedText(db, input.sessionId, id) })));
    const ended = await inTransaction(db, async (client) => {
      if (await lockedSessionHasEvent(client, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.turnId }, true)) return undefined;
      const observe = await turnEnd(client, input.sessionId, input.turnId, input.outcome);
      const completed: NewEvent[] = [];
      for (const message of salvaged) {
        const parts: MessagePart[] = message.text ? [{ type: 'text', text: message.text }] : [];
        const ended = await endStreamingMessage(client, message.id, input.outcome === 'failed' ? 'failed' : 'aborted', parts);
        if (ended) completed.push({ type: 'message.completed', data: { message: ended } });
      }
      await appendEvents(
        client,
        input.sessionId,
        [
          ...completed,
          input.outcome === 'failed'
            ? { type: 'turn.failed', data: { turnId: input.turnId, error: input.error ?? 'The turn failed' } }
            : { type: 'turn.aborted', data: { turnId: input.turnId } },
        ],
        { status: 'idle' },
      );
      const pushed = await insertPushDeliveries(client, {
        sessionId: input.sessionId,
        taskId: input.turnId,
        turnId: input.turnId,
        ...(input.outcome === 'failed'
          ? { state: 'TASK_STATE_FAILED' as const, text: input.error ?? 'The turn failed' }
          : { state: 'TASK_STATE_CANCELED' as const }),
      });
      return { observe, pushed };
    });
    ended?.observe();
    if (ended) await startTaskNotifications(deps, ended.pushed);
  }

  /**
   * The turn a session workflow left without its end (terminated or timed out by an operator while its
   * turn ran in it): the session's latest started turn, while the session still
   * says it runs. Only the first send of a fresh run asks, so an idle session costs one read of its row.
   */
  async function strandedTurn(sessionId: string): Promise<string | undefined> {
    // Sends the API took make a session `running` before any turn starts: the latest turn counts only
    // while its end is not written.
    const { rows } = await db.query<{ turn_id: string | null }>(
      `SELECT t.turn_id FROM sessions s,
              LATERAL (SELECT e.data->>'turnId' AS turn_id FROM events e
                        WHERE e.session_id = s.id AND e.type = 'turn.started' ORDER BY e.seq DESC LIMIT 1) t
        WHERE s.id = $1 AND s.status <> 'idle'
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.type = ANY($2) AND e.data @> jsonb_build_object('turnId', t.turn_id))`,
      [sessionId, TERMINAL_TURN_EVENTS],
    );
    return rows[0]?.turn_id ?? undefined;
  }

  /**
   * Ends a turn an earlier run left without its end (endTurn writes nothing for a turn whose end is
   * written already); a caller waiting for it (another agent's call) learns it failed.
   */
  async function endStrandedTurn(sessionId: string, turnId: string): Promise<void> {
    // Told before the end is written: the end takes the send, with where its reply goes, out of the inbox,
    // and a retry after a failed hand-back must still find both. Told twice, the caller takes it once.
    const replyTo = await replyTargetOf(db, sessionId, turnId);
    if (replyTo)
      await handBackStranded(db, Context.current().client, replyTo, { childSessionId: sessionId, turnId, error: STRANDED_TURN_ERROR });
    await endTurn({ sessionId, turnId, outcome: 'failed', error: STRANDED_TURN_ERROR });
  }

  return {
    async recordUserMessage(input: {
      sessionId: string;
      messageId: string;
      parts: MessagePart[];
      /** Steering: the user message of the running turn this message joins. */
      joinTurn?: string;
      /** That turn's id: a turn that has written its end is not joined. */
      joinTurnId?: string;
      /**
       * The first send of a fresh session run with no turn running: a turn an earlier run left without its
       * end (that run terminated) gets its `turn.failed` first, so no reader waits for it forever.
       */
      endStrandedTurn?: boolean;
    }): Promise<RecordedSend> {
      if (input.endStrandedTurn) {
        const turnId = await strandedTurn(input.sessionId);
        if (turnId) await endStrandedTurn(input.sessionId, turnId);
      }
      try {
        const { seq, turnStarted, joined, joinedTurn } = await recordUserMessage(db, input);
        return { seq, turnStarted, ...(input.joinTurn ? { joined } : {}), ...(joinedTurn ? { joinedTurn } : {}) };
      } catch (error) {
        // A message PostgreSQL refuses (the API refuses such text; this is the backstop) fails the same way
        // every time: retried, a signalled send would never settle and would hold its session for good.
        if (isDataException(error)) {
          throw nonRetryable(FAILURE.unstorableMessage, `The message cannot be stored: ${error.message}`);
        }
        throw error;
      }
    },

    /**
     * The sends the API took for this session whose turns have not ended, in seq order
     * (store/session-inbox.ts). `endStrandedTurn` as for recordUserMessage.
     */
    async takeWaitingSends(input: { sessionId: string; endStrandedTurn?: boolean }): Promise<InboxItem[]> {
      if (input.endStrandedTurn) {
        const turnId = await strandedTurn(input.sessionId);
        if (turnId) {
          // Steering joined to it would leave the inbox with its end, unread: they run on their own.
          await detachFromTurn(db, input.sessionId, turnId);
          await endStrandedTurn(input.sessionId, turnId);
        }
      }
      // A client's tool answers the API took ride on the same wake-up (store/client-tool-answers.ts).
      const { sends, answers } = await takeInbox(db, input.sessionId);
      return [...sends, ...answers.map((toolAnswer) => ({ toolAnswer }))];
    },

    /**
     * The turn stops waiting for these client calls (its timeout): PostgreSQL decides against an answer
     * the API is storing at the same moment. Returns the answers stored first, for the turn to take.
     */
    async closeClientToolCalls(input: {
      sessionId: string;
      userId: string;
      messageId: string;
      toolCallIds: string[];
    }): Promise<ToolResultInput[]> {
      return closeClientToolCalls(db, input);
    },

    async startTurn(input: { sessionId: string; turnId: string; userMessageId?: string }): Promise<void> {
      const { sessionId: _sessionId, ...data } = input;
      await inTransaction(db, async (client) => {
        if (await lockedSessionHasEvent(client, input.sessionId, ['turn.started'], { turnId: input.turnId })) return;
        await appendEvents(client, input.sessionId, [{ type: 'turn.started', data }], { status: 'running' });
      });
    },

    /** Reverts a message and all after it; a busy session, a message gone or not a reply to regenerate fail at once. */
    async revertMessages(input: {
      sessionId: string;
      messageId: string;
      regenerate: boolean;
      runningTurnId?: string;
    }): Promise<RevertOutcome> {
      const { regenerate, ...target } = input;
      try {
        return await revertFrom(db, { ...target, requireAssistant: regenerate });
      } catch (error) {
        if (error instanceof MessageNotFoundError) throw nonRetryable(FAILURE.messageNotFound, error.message);
        if (error instanceof NotAnAssistantMessageError) throw nonRetryable(FAILURE.notAnAssistantMessage, error.message);
        if (error instanceof SessionBusyError) throw nonRetryable(FAILURE.sessionBusy, error.message);
        throw error;
      }
    },

    /** A subtask's turn has ended: its reply, as a message of the session the command was called from. */
    async returnSubtaskReply(input: SubtaskReply): Promise<{ recorded: boolean }> {
      return recordSubtaskReply(db, input);
    },

    async recordToolResults(input: { sessionId: string; turnId: string; messageId: string; results: ToolResultPart[] }): Promise<void> {
      await recordToolResults(db, input);
    },

    /** A structured reply that was not valid: its event, and the note the model reads before trying again. */
    async recordInvalidReply(input: {
      sessionId: string;
      turnId: string;
      invalidMessageId: string;
      attempt: number;
      errors: string[];
      attemptsLeft: number;
      /** Given when the model gets another attempt: the id of the note it reads. */
      feedbackMessageId?: string;
    }): Promise<void> {
      const { feedbackMessageId, attemptsLeft, ...invalid } = input;
      await recordInvalidReply(db, {
        ...invalid,
        ...(feedbackMessageId ? { feedback: { messageId: feedbackMessageId, text: jsonReplyFeedback(input.errors, attemptsLeft) } } : {}),
      });
    },

    /** A client's result for one call, announced as its tool.result at once (once, however often retried). */
    async announceToolResult(input: { sessionId: string; messageId: string; result: ToolResultPart }): Promise<void> {
      const { result } = input;
      await inTransaction(db, (client) =>
        appendEventOnce(client, input.sessionId, toolResultEvent(input.messageId, result), {
          messageId: input.messageId,
          toolCallId: result.toolCallId,
        }),
      );
    },

    /** The session waits while its running turn waits for a client's tool results, and runs again after. */
    async setClientToolWait(input: { sessionId: string; turnId: string; waiting: boolean }): Promise<void> {
      await inTransaction(db, async (client) => {
        await moveSessionStatus(client, input.sessionId, {
          to: input.waiting ? 'waiting' : 'running',
          from: [input.waiting ? 'running' : 'waiting'],
          whileLatestTurn: input.turnId,
        });
        // Retried, this tells the callers again: a second `subagent.waiting` is harmless, a missing one is not.
        if (input.waiting) await announceWaitToCallers(client, input.sessionId, input.turnId, 'tool');
      });
      if (input.waiting) {
        // An A2A client waiting on this task is told it waits on its client's tools, naming them.
        if (await hasPushConfigs(db, input.sessionId, input.turnId)) {
          const calls = await awaitedClientToolCalls(db, input.sessionId);
          if (calls[0]) {
            const names = [...new Set(calls.map((call) => call.toolName))].join(', ');
            const pushed = await insertPushDeliveries(db, {
              sessionId: input.sessionId,
              taskId: input.turnId,
              turnId: input.turnId,
              state: 'TASK_STATE_INPUT_REQUIRED',
              text: `Waiting for the client's results of ${names}: POST /session/${input.sessionId}/tool-result answers each call.`,
              // One wait per step: its calls' message names it.
              changeKey: `tools:${calls[0].messageId}`,
            });
            await startTaskNotifications(deps, pushed);
          }
        }
        // An eval's case replaying a recorded session has no client: the recording answers what it can.
        await answerReplayedClientCalls(db, () => Context.current().client, input.sessionId);
      }
    },

    async completeTurn(input: { sessionId: string; turnId: string; usage: TokenUsage; costUsd: number | null }): Promise<void> {
      const ended = await inTransaction(db, async (client) => {
        // An abort racing this write may have ended the turn already: exactly one terminal event.
        if (await lockedSessionHasEvent(client, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.turnId }, true)) return undefined;
        const observe = await turnEnd(client, input.sessionId, input.turnId, 'completed');
        await appendEvents(
          client,
          input.sessionId,
          [{ type: 'turn.completed', data: { turnId: input.turnId, usage: input.usage, costUsd: input.costUsd } }],
          { status: 'idle' },
        );
        const pushed: RecordedPush[] = await insertPushDeliveries(client, {
          sessionId: input.sessionId,
          taskId: input.turnId,
          turnId: input.turnId,
          state: 'TASK_STATE_COMPLETED',
        });
        return { observe, pushed };
      });
      ended?.observe();
      if (ended) await startTaskNotifications(deps, ended.pushed);
    },

    /**
     * Tells the workers that a turn was cancelled (store/turn-aborts.ts): the one streaming its model
     * step cuts the model call now rather than at its next heartbeat.
     */
    async announceTurnAbort(input: { sessionId: string; turnId: string }): Promise<void> {
      await announceTurnAbort(db, input.sessionId, input.turnId);
    },

    /**
     * The seq of a turn's terminal event (null before it is written): the session workflow compares it
     * with the seqs of the turns queued behind it, to tell whether the session was idle when the turn ended.
     */
    async turnEndSeq(input: { sessionId: string; turnId: string }): Promise<number | null> {
      return seqOfEvent(db, input.sessionId, TERMINAL_TURN_EVENTS, { turnId: input.turnId });
    },

    endTurn,
  };
}
