// One workflow per session (`session:<id>`) orders its turns. The API takes a send in PostgreSQL and
// wakes this workflow with a signal (sendsWaitingSignal); the workflow reads the session's inbox in seq
// order and queues each send's turn (older API processes and the trigger activities send an Update that
// records the message here instead). Turns run one at a time. `ifBusy` can interrupt the running turn
// or steer it. An idle session workflow ends; the next send starts it again (signal- or update-with-
// start), so nothing waits in memory between conversations.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  deprecatePatch,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { FAILURE, nonRetryable } from '../lib/workflow-safe/failures.ts';
import { runTurn, type RunningTurnHandle } from './turn.ts';
import type { ToolResultInput } from '../core/client-tool-calls.ts';
import { placeWaits } from './place-waits.ts';
import { compactionPlaceKey } from '../core/place-keys.ts';
import { SendTraces } from './send-traces.ts';
import { messageId } from './ids.ts';
import { publishTurnEnd, type TurnEnd } from './publish.ts';
import { SessionTurns, type SubtaskReplyTarget } from '../core/session-turns.ts';
import type { AgentCallReplyTarget } from '../core/turn-types.ts';
import { graphRunWorkflowId, sessionWorkflowId } from '../lib/workflow-safe/workflow-ids.ts';
import { agentNodeEndedSignal } from './graph-messages.ts';
import { PATCHES_OF_0_1_0 } from './release-patches.ts';

import {
  abortTurnSignal,
  abortUpdate,
  agentCallEndedSignal,
  compactUpdate,
  revertUpdate,
  sendSignal,
  sendsWaitingSignal,
  sendUpdate,
  stateQuery,
  type SendInput,
  type SendResult,
  type SessionWorkflowInput,
} from './session-messages.ts';

export * from './session-messages.ts';

/**
 * History stays small: a fresh run after this many turns. A worker that takes a session over (another
 * crashed, restarted or was deployed) replays its run's whole history in one workflow task, which must
 * finish within the task's 10 s timeout on a busy machine; runs of 100 turns (about 1,100 events) did
 * not always, and the session then refused sends while the task was retried.
 */
const TURNS_PER_RUN = 25;
/**
 * A run's history also holds its turns' steps, tool calls and waits, so it also ends (continue-as-new,
 * between turns) once it holds this many events, below the 1,100 whose replay outlasted a busy worker's
 * task timeout.
 */
const EVENTS_PER_RUN = 800;
/**
 * ... and once its history holds this many bytes: what a replay reads and decodes. Turns whose tools
 * are approved carry their questions in several events, so 700 events reached 200 KB in a soak, and
 * their replay after a worker restart outlasted the task timeout on a busy machine, again and again.
 */
const BYTES_PER_RUN = 128 * 1024;

/** Whether this run's history is as long as a replay on a busy worker can take within its task timeout. */
function runIsFull(): boolean {
  const { historyLength, historySize } = workflowInfo();
  if (historyLength >= EVENTS_PER_RUN) return true;
  if (historySize < BYTES_PER_RUN) return false;
  // Asked only once a run is past it, where release 0.1.0 asked its patch.
  deprecatePatch(PATCHES_OF_0_1_0.continueBySize);
  return true;
}

/** The call of another agent a send answers (not a graph node's, nor a subtask's), as its turn's steps are told it. */
function agentCallOf(target: SubtaskReplyTarget | undefined): AgentCallReplyTarget | undefined {
  if (!target?.toolCallId || target.runId) return undefined;
  return {
    parentSessionId: target.sessionId,
    messageId: target.messageId,
    toolCallId: target.toolCallId,
    agent: target.agent ?? '',
    ...(target.workflowId ? { callerWorkflowId: target.workflowId } : {}),
  };
}

export async function sessionWorkflow(input: SessionWorkflowInput): Promise<void> {
  // Local activities: a send's recording runs inside the workflow task (one transaction, idempotent).
  // Unlike an approval's answer (workflows/approval.ts), a message stored by a task Temporal then drops
  // decides nothing: the API never answers a send from the stored message alone, and the send sent again
  // (the same message id, under its Idempotency-Key) is taken then and runs its turn once. A send's task
  // never also ends the workflow (its handler holds the idle exit and continue-as-new back), so Temporal
  // has no reason to refuse it; a task lost with its worker is timed out and its Update delivered again.
  const { recordUserMessage, revertMessages, endTurn, returnSubtaskReply, turnEndSeq } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10 },
  });
  // Another agent's reply (or a graph node's) is what its caller waits for, with no timeout: it keeps
  // trying (the database or Temporal may be down a while), never given up after a few tries.
  const { endAgentCall, endAgentNode } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumInterval: '1 minute' },
  });
  // A signalled send has no caller to tell of a failure: it keeps trying (the database may be down)
  // rather than drop the message. Only a message the database can never store (the activity's
  // non-retryable UnstorableMessage) is dropped, with a warning, so the sends after it go on.
  const { recordUserMessage: recordSignalledMessage, takeWaitingSends } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { maximumInterval: '1 minute' },
  });
  // A compaction asked for through the API: a model call, retried as a turn's steps are.
  const { compactConversation } = proxyActivities<Activities>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: input.settings.stepHeartbeatTimeoutMs,
    retry: {
      initialInterval: input.settings.stepRetryInitialIntervalMs,
      backoffCoefficient: 2,
      maximumAttempts: input.settings.stepMaxAttempts,
      nonRetryableErrorTypes: [FAILURE.modelRejected, FAILURE.modelConfiguration],
    },
  });
  // Where release 0.1.0 asked these patches, so that the runs it left open replay (workflows/release-patches.ts).
  deprecatePatch(PATCHES_OF_0_1_0.settledSendsShortRuns);
  deprecatePatch(PATCHES_OF_0_1_0.turnsInSession);
  // The rules (core/session-turns.ts); this workflow wires them to handlers, its turns and activities.
  const turns = new SessionTurns(input.queue, input.abortsAsked);
  // The run's waits for places (a turn's steps, calls and compactions, a compaction asked for), woken by
  // STEP_PLACE_FREED: its handler issues no command, so registering it for every run changes no history.
  const places = placeWaits();
  const sendTraces = new SendTraces();
  /** The cancellation scope of the running turn. */
  let runningScope: CancellationScope | undefined;
  /** The running turn: a steering message or a client's tool answer is handed to it directly. */
  let running: RunningTurnHandle | undefined;
  /**
   * A fresh run (not continued from another) before its first turn: its first send has the activity end
   * a turn an earlier run left without its end. A turn dies with a run an operator terminates (nothing
   * is left to end it); the next send ends such a turn.
   */
  let mayFindStrandedTurn = !workflowInfo().continuedFromExecutionRunId;
  // Sends are handled one after another so messages are recorded in the order they were accepted.
  let sendChain: Promise<unknown> = Promise.resolve();

  setHandler(stateQuery, () => turns.state());

  /**
   * A client's tool answer the API stored goes to the running turn, which takes it if it waits for that
   * call; with no turn running, its turn has ended and nothing awaits it.
   */
  function handToTurn(answer: ToolResultInput): void {
    running?.toolAnswer(answer);
  }

  /** Records a send after the ones before it and queues its turn once, however often it arrives. */
  function acceptSend(send: SendInput, record: typeof recordUserMessage): Promise<SendResult> {
    const sentIn = SendTraces.active();
    turns.recording += 1;
    const result = sendChain.then(async (): Promise<SendResult> => {
      // Steering joins the running turn (not one being aborted); with none running it is an ordinary send.
      const steered = turns.steerTarget(send.ifBusy);
      const recorded = await record({
        sessionId: input.sessionId,
        messageId: send.messageId,
        parts: send.parts,
        ...(steered ? { joinTurn: steered.userMessageId, joinTurnId: steered.turnId } : {}),
        ...(mayFindStrandedTurn && !turns.running ? { endStrandedTurn: true } : {}),
      });
      mayFindStrandedTurn = false;
      const verdict = turns.recorded(send, recorded, steered);
      if (verdict.kind === 'joined') {
        if (verdict.signal) running?.steer(send.messageId);
        return { messageId: send.messageId, seq: recorded.seq, joined: verdict.turn };
      }
      if (verdict.kind === 'queued') sendTraces.remember(send.messageId, sentIn);
      if (verdict.kind === 'queued' && verdict.cancel) runningScope?.cancel();
      return { messageId: send.messageId, seq: recorded.seq };
    });
    sendChain = result.catch(() => undefined).finally(() => (turns.recording -= 1));
    return result;
  }

  /** A take is queued on the chain and has not started: signals meanwhile need no take of their own. */
  let takeQueued = false;

  /**
   * Reads the inbox after the sends before it, and queues (or steers with) the sends it has not seen.
   * Its handler holds the idle exit and continue-as-new back until the take is done (allHandlersFinished).
   */
  function takeWaiting(): Promise<void> {
    if (takeQueued) return Promise.resolve();
    takeQueued = true;
    const sentIn = SendTraces.active();
    turns.recording += 1;
    const result = sendChain.then(async () => {
      takeQueued = false;
      const sends = await takeWaitingSends({
        sessionId: input.sessionId,
        ...(mayFindStrandedTurn && !turns.running ? { endStrandedTurn: true } : {}),
      });
      mayFindStrandedTurn = false;
      for (const item of sends) {
        if ('toolAnswer' in item) {
          handToTurn(item.toolAnswer);
          continue;
        }
        const send = item;
        // A regeneration the API took (its revert written with it): its turn answers the user message again.
        if (send.regenerate) {
          if (turns.regenerationTaken(send)) sendTraces.remember(send.turnId, sentIn);
          continue;
        }
        const verdict = turns.taken(send);
        if (verdict.kind === 'joined' && verdict.signal) running?.steer(send.messageId);
        if (verdict.kind === 'queued') sendTraces.remember(send.messageId, sentIn);
        if (verdict.kind === 'queued' && verdict.cancel) runningScope?.cancel();
      }
    });
    const taken = result
      .catch((error) => {
        // Only a cancelled workflow gets here (the take retries): logged, as a failing signal handler
        // would fail the whole session workflow.
        log.warn('the waiting sends were not taken', { error: String(error) });
      })
      .finally(() => {
        turns.recording -= 1;
      });
    sendChain = taken;
    return taken;
  }

  setHandler(sendsWaitingSignal, () => takeWaiting());
  // Another agent's reply to a call of the running turn, with the answer: no inbox read needed.
  setHandler(agentCallEndedSignal, (answer) => handToTurn(answer));

  setHandler(sendSignal, async (send) => {
    try {
      await acceptSend(send, recordSignalledMessage);
    } catch (error) {
      // Only a refusal the activity marks non-retryable, or a cancelled workflow, gets here: logged, as a
      // failing signal handler would fail the whole session workflow.
      log.warn('a signalled send was not recorded', { messageId: send.messageId, error: String(error) });
    }
  });

  setHandler(sendUpdate, (send) => acceptSend(send, recordUserMessage), {
    validator: (send) => {
      if (send.ifBusy === 'reject' && turns.refusesReject()) throw nonRetryable(FAILURE.sessionBusy, 'A turn is running in this session');
    },
  });

  /** Cancels the running turn; false when there is none, it has ended, or it is already being cancelled. */
  function cancelRunning(): boolean {
    if (!turns.cancelRunning()) return false;
    runningScope?.cancel();
    return true;
  }

  setHandler(abortUpdate, () => ({ aborted: cancelRunning() }));
  setHandler(abortTurnSignal, ({ turnId }) => {
    if (turns.abortAsked(turnId)) {
      runningScope?.cancel();
      return Promise.resolve();
    }
    // For a turn not started yet: the inbox is read too, so a run the abort started (its send's own
    // wake-up lost) takes that send, and aborts its turn as it starts, rather than idle out.
    return takeWaiting();
  });

  // This release's API takes reverts and regenerations in PostgreSQL (api/routes/session-history.ts; a
  // regeneration's turn comes through the inbox); an API of the release before asks them as this Update
  // during a rolling deploy, and its histories hold it.
  setHandler(
    revertUpdate,
    (revert) => {
      const sentIn = SendTraces.active();
      const result = sendChain.then(async () => {
        // A send accepted before this revert may have queued its turn meanwhile.
        if (turns.refusesRevert()) throw nonRetryable(FAILURE.sessionBusy, 'A turn is queued in this session');
        // A turn may still be returning here after writing its end (which a client may have seen):
        // the activity refuses unless that end is written.
        const done = await revertMessages({
          sessionId: input.sessionId,
          messageId: revert.messageId,
          regenerate: !!revert.regenerate,
          ...(turns.running ? { runningTurnId: turns.running.turnId } : {}),
        });
        if (revert.regenerate) {
          const { turnId, model } = revert.regenerate;
          turns.queueRegenerate(turnId, done.userMessageId, done.seq, model);
          sendTraces.remember(turnId, sentIn);
        }
        return done;
      });
      sendChain = result.catch(() => undefined);
      return result;
    },
    {
      validator: (_revert) => {
        if (turns.refusesRevert()) throw nonRetryable(FAILURE.sessionBusy, 'A turn is queued in this session');
      },
    },
  );

  // After the sends and reverts accepted before it; sends accepted meanwhile are recorded at once, and
  // their turns wait for it (SessionTurns.compacting) so that they read its summary.
  setHandler(
    compactUpdate,
    async () => {
      await sendChain;
      if (turns.refusesRevert()) throw nonRetryable(FAILURE.sessionBusy, 'A turn is queued in this session');
      turns.compacting = true;
      try {
        const summaryMessageId = messageId();
        // It takes one of its user's places as a turn's step does, and waits for one here the same way;
        // results recorded before that never come back queued.
        return await places.run(compactionPlaceKey(input.sessionId, summaryMessageId), () =>
          compactConversation({
            sessionId: input.sessionId,
            userId: input.userId,
            agentId: input.agentId,
            revision: input.revision,
            summaryMessageId,
            reason: 'requested',
            ...(turns.running ? { runningTurnId: turns.running.turnId } : {}),
            mayQueue: true,
            wakeWorkflowId: sessionWorkflowId(input.sessionId),
          }),
        );
      } finally {
        turns.compacting = false;
      }
    },
    {
      validator: () => {
        if (turns.refusesRevert()) throw nonRetryable(FAILURE.sessionBusy, 'A turn is queued or a compaction runs in this session');
      },
    },
  );

  /**
   * With turns queued: whether each was queued after this completed turn wrote its end (only a
   * completed turn's idleness is published).
   */
  async function idleAfterCompleted(turnId: string, ended: TurnEnd): Promise<boolean> {
    if (!('outcome' in ended) || ended.outcome.status !== 'completed') return false;
    deprecatePatch(PATCHES_OF_0_1_0.idleAtTurnEnd);
    try {
      const endSeq = await turnEndSeq({ sessionId: input.sessionId, turnId });
      return endSeq !== null && turns.idleAt(endSeq);
    } catch (error) {
      // The database stayed out of reach: a queued turn means not idle.
      log.warn('could not read the end of a turn', { turnId, error: String(error) });
      return false;
    }
  }

  /**
   * A subtask's reply into its parent session; another agent's call's result into its caller's inbox,
   * signalled to the calling workflow; or a graph node's reply, signalled to its run. Only a cancelled
   * workflow gets past the activities' retries: logged, never failing this session.
   */
  async function returnReply(turnId: string, target: SubtaskReplyTarget, ended: TurnEnd): Promise<void> {
    const status = 'outcome' in ended ? ended.outcome.status : 'failed';
    try {
      const end = {
        parentSessionId: target.sessionId,
        messageId: target.messageId,
        toolCallId: target.toolCallId ?? '',
        agent: target.agent ?? '',
        childSessionId: input.sessionId,
        turnId,
        status,
        ...(target.workflowId ? { callerWorkflowId: target.workflowId } : {}),
      };
      if (target.runId) {
        // A workflow graph's agent node: its run waits for this signal (workflows/graph.ts).
        await getExternalWorkflowHandle(graphRunWorkflowId(target.runId)).signal(agentNodeEndedSignal, await endAgentNode(end));
        return;
      }
      // The activity stores the reply as the call's answer and signals the caller's workflow with it.
      if (target.toolCallId) {
        await endAgentCall(end);
        return;
      }
      await returnSubtaskReply({
        parentSessionId: target.sessionId,
        messageId: target.messageId,
        childSessionId: input.sessionId,
        turnId,
        status,
        ...(target.command ? { command: target.command } : {}),
      });
    } catch (error) {
      log.warn('could not return a subtask reply', { parentSessionId: target.sessionId, turnId, error: String(error) });
    }
  }

  let turnsRun = 0;
  for (;;) {
    const hasWork = await condition(() => turns.hasWork(), input.settings.sessionIdleMs);
    if (!hasWork) {
      // Idle: finish, but only once no send is half-way through its handler.
      await condition(allHandlersFinished);
      if (!turns.hasWork()) return;
      continue;
    }
    const { turn, aborted } = turns.start();
    const scope = new CancellationScope();
    runningScope = scope;
    // Its abort was asked before it started: it runs cancelled, and ends aborted at its first step.
    if (aborted) scope.cancel();
    let ended: TurnEnd;
    const answersCall = agentCallOf(turn.replyTo);
    const turnInput = {
      sessionId: input.sessionId,
      userId: input.userId,
      agentId: input.agentId,
      revision: input.revision,
      turnId: turn.turnId,
      settings: input.settings,
      ...(turn.model ? { model: turn.model } : {}),
      ...(turn.userMessageId ? { userMessageId: turn.userMessageId } : {}),
      ...(answersCall ? { replyTo: answersCall } : {}),
    };
    try {
      const outcome = await sendTraces.run(turn.turnId, () =>
        scope.run(() => {
          running = runTurn(turnInput, { places, wakeWorkflowId: sessionWorkflowId(input.sessionId) });
          return running.result;
        }),
      );
      ended = { outcome };
    } catch (error) {
      // A failed or aborted turn has written its terminal event already, and then this is a no-op.
      // A turn that never could (terminated by an operator, timed out) gets its turn.failed here,
      // so no reader waits forever and the session does not stay `running`.
      ended = { error };
      await endTurn({
        sessionId: input.sessionId,
        turnId: turn.turnId,
        ...(turn.userMessageId ? { userMessageId: turn.userMessageId } : {}),
        outcome: 'failed',
        error: 'The turn stopped before it finished (it was terminated or timed out)',
      });
    } finally {
      // What follows a turn's end (is the session idle, does a steering message join this turn or
      // queue, does an interrupt find a turn to cancel) must not depend on whether a send arriving as
      // the turn ended was recorded before or after that end was seen. It can be either way round on
      // a replay: a send's recording is a local activity, and one that outlasted its workflow task
      // (a busy worker; the task is then extended) is handed to the replay in the same activation as
      // the turn's end, where the first run saw them one after the other. So the sends in flight are
      // recorded first; their signals and Updates are in history, so a replay waits for the same ones.
      // Meanwhile the ended turn is not offered to aborts and tool results (the state query); a steering
      // message still reads it as running, and its recording finds the turn's end written: it queues.
      turns.ended();
      await condition(() => turns.recording === 0);
      runningScope = undefined;
      running = undefined;
    }
    // Steering the turn did not read (it was ending, or it failed or was aborted) runs as turns of its own, in order.
    turns.settled('outcome' in ended ? (ended.outcome.steered ?? []) : [], 'outcome' in ended ? (ended.outcome.read ?? []) : []);
    await publishTurnEnd(input, turn.turnId, ended, !turns.hasWork() || (await idleAfterCompleted(turn.turnId, ended)));
    // A completed turn's last step may have handed its reply to the agent that called it already.
    const handedBack = 'outcome' in ended && ended.outcome.answerHandedBack === true;
    if (turn.replyTo && !handedBack) await returnReply(turn.turnId, turn.replyTo, ended);
    // Asked before the count, as 0.1.0 asked its patch: a run that grew full on its last turn has its marker.
    const full = runIsFull();
    if (++turnsRun >= TURNS_PER_RUN || full || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      const abortsAsked = turns.pendingAborts();
      await continueAsNew<typeof sessionWorkflow>({ ...input, queue: turns.queue, ...(abortsAsked.length ? { abortsAsked } : {}) });
    }
  }
}
