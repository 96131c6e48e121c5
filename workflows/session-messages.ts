// How the outside talks to a session's workflow (workflows/session.ts): its Updates, signals and query,
// their inputs and results, and the workflow's own type. Apart from the workflow's body, so the door to it
// (clients/session.ts) imports these and nothing of what the body imports: activities among them.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { MessagePart } from '../contract/events.ts';
import type { CompactionResult, ModelOverride, SessionRef } from '../core/turn-types.ts';
import type { TurnSettings } from '../lib/workflow-safe/turn-settings.ts';
import type { QueuedTurn, SessionState, SubtaskReplyTarget } from '../core/session-turns.ts';
import type { IfBusy } from '../contract/if-busy.ts';
import type { ToolResultInput } from '../core/client-tool-calls.ts';
export type { IfBusy, SessionState, SubtaskReplyTarget };

export interface SendInput {
  messageId: string;
  parts: MessagePart[];
  model?: ModelOverride;
  ifBusy: IfBusy;
  /** A subtask's send: once its turn ends, its reply goes back to this session as this message. */
  replyTo?: SubtaskReplyTarget;
}

export interface SendResult {
  messageId: string;
  /** seq of the user message's `message.created` event: the turn's events follow it. */
  seq: number;
  /** A steering message joined this running turn (its turn id and user message) instead of starting one. */
  joined?: { turnId: string; userMessageId: string };
}

export const sendUpdate = defineUpdate<SendResult, [SendInput]>('send');
/**
 * The same send as a signal, recorded when a worker takes it (what API processes before the inbox sent
 * for `?async=1`; kept for them during a rollout). It cannot answer, so it has no `ifBusy=reject`.
 */
export const sendSignal = defineSignal<[AsyncSendInput]>('sendAsync');
export type AsyncSendInput = Omit<SendInput, 'ifBusy'> & { ifBusy: Exclude<IfBusy, 'reject'> };
/**
 * The API took a send (store/session-inbox.ts: the message and its inbox row are in PostgreSQL): the
 * workflow reads the session's inbox in seq order. A signal, so the engine takes it with no worker
 * running; it carries only the message id, as a wake-up (a lost one is sent again by the API's sweep).
 */
export const sendsWaitingSignal = defineSignal<[{ messageId: string }]>('sendsWaiting');
/**
 * Another agent's call of this session's turn has its answer (store/agent-calls.ts stored it in the inbox
 * first): sent by the child's worker with the answer itself, so the waiting turn takes it without reading
 * the inbox; a lost one is the inbox's, read by the next take (the API's sweep wakes it).
 */
export const agentCallEndedSignal = defineSignal<[ToolResultInput]>('agentCallEnded');
/** An abort an API of an earlier release asks: the workflow says whether a turn was running. */
export const abortUpdate = defineUpdate<{ aborted: boolean }>('abort');
/**
 * An abort the API asks of one turn: the session's running turn, or its first waiting one, as PostgreSQL
 * showed it (api/sessions/workflows.ts). A signal, so the engine takes it with no worker running; a turn
 * not started yet is cancelled as it starts, one already over is left alone.
 */
export const abortTurnSignal = defineSignal<[{ turnId: string }]>('abortTurn');

export interface RevertInput {
  /** This message and every message after it leave the conversation. */
  messageId: string;
  /** Run the reverted reply's turn again, as a new turn with this id answering the same user message. */
  regenerate?: { turnId: string; model?: ModelOverride };
}

export interface RevertResult {
  reverted: string[];
  /** seq of the `messages.reverted` event: a regenerated turn's events follow it. */
  seq: number;
  /** The user message of the reverted message's turn. */
  userMessageId: string;
}

/** Refused (FAILURE.sessionBusy) while a turn runs or waits in the queue; in order with sends otherwise. */
export const revertUpdate = defineUpdate<RevertResult, [RevertInput]>('revert');
/** POST /session/<id>/compact: the conversation compacted now, between turns (activities/turn/compaction.ts). */
export const compactUpdate = defineUpdate<CompactionResult>('compact');
/** The rules' state (core/session-turns.ts): the running turn and the ones queued behind it. */
export const stateQuery = defineQuery<SessionState>('state');

export interface SessionWorkflowInput extends SessionRef {
  settings: TurnSettings;
  /** Turns carried over a continue-as-new. */
  queue?: QueuedTurn[];
  /** Aborts asked of turns not started yet, carried over a continue-as-new. */
  abortsAsked?: string[];
}

/** The session workflow's type, for starting it by name (clients/session.ts). */
export type SessionWorkflow = (input: SessionWorkflowInput) => Promise<void>;
