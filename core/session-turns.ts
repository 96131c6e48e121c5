// The rules of a session's turns, with no Temporal in them: which turn runs next, what each `ifBusy`
// mode does to a send, when steering joins the running turn, what an abort or an interrupt cancels,
// when a revert is refused, and whether the session was idle when a turn ended. The session workflow
// (workflows/session.ts) wires this to its handlers, its turns and its activities; the unit tests
// (test/unit/core/session-turns.test.ts) drive it through every mode and interleaving directly.
import type { IfBusy } from '../contract/if-busy.ts';
import type { ModelOverride } from './turn-types.ts';
import type { ToolResultInput } from './client-tool-calls.ts';

/** A turn waiting to run, with the seq of the event that queued it when it has one. */
export interface QueuedAt {
  /**
   * The seq of its user message's `message.created` (or of the `messages.reverted` that queued a
   * regenerated turn). Absent for a turn queued before seqs were kept, and for a steering message
   * the ended turn did not read: both were waiting while the turn ran.
   */
  seq?: number;
}

/** Where a subtask's reply goes once its turn ends. */
/**
 * Where a turn's reply goes once it ends: a subtask's reply into the session its command was called
 * from (as message `messageId`), or, with `toolCallId`, another agent's call (its step message
 * `messageId`), whose result the reply is (store/agent-calls.ts).
 */
export interface SubtaskReplyTarget {
  sessionId: string;
  messageId: string;
  command?: string;
  toolCallId?: string;
  /** The called agent's name, for the caller's events. */
  agent?: string;
  /** A workflow graph's agent node run by another agent: the run, signalled with the reply (workflows/graph.ts). */
  runId?: string;
  /** The calling turn's workflow, signalled with the reply: its session's, or a graph node's turn workflow. */
  workflowId?: string;
}

/** How a workflow graph's agent node run by another agent ended: the child's turn, and its reply or why it failed. */
export interface AgentNodeEnd {
  /** The child's turn: the node's message in the child session. */
  turnId: string;
  status: 'completed' | 'failed' | 'aborted';
  reply: string;
  error?: string;
}

export interface QueuedTurn extends QueuedAt {
  turnId: string;
  /** A regenerated turn answers this user message; otherwise the user message is `turnId`. */
  userMessageId?: string;
  model?: ModelOverride;
  replyTo?: SubtaskReplyTarget;
}

/** The turn being run; `ended` once it returned (it stays here while the sends in flight are recorded). */
export interface RunningTurn {
  turnId: string;
  userMessageId: string;
  cancelRequested: boolean;
  ended: boolean;
}

export interface SessionState {
  runningTurnId: string | null;
  queued: string[];
}

/** What a send asked for, as far as the rules are concerned. */
export interface SendRequest {
  messageId: string;
  ifBusy: IfBusy;
  model?: ModelOverride;
  replyTo?: SubtaskReplyTarget;
}

/** The turn a steering message joined: its id, and the user message whose turn it is. */
export interface JoinedTurn {
  turnId: string;
  userMessageId: string;
}

/** What recording the send's message found (activities/turn/bookkeeping.ts, recordUserMessage). */
export interface RecordedSend {
  seq: number;
  /**
   * false: the turn it was to join had written its end, or (a message recorded before) it belongs to
   * another turn; absent from results recorded before `joined`.
   */
  joined?: boolean;
  /** The message's turn has started already (a send seen again after its turn ran). */
  turnStarted?: boolean;
  /**
   * A message recorded before, as a steering message of this turn (a send seen again, perhaps by a later
   * run of the session workflow). Absent from results recorded before it.
   */
  joinedTurn?: JoinedTurn;
}

/** A send the API took (store/session-inbox.ts), as the session workflow reads it from the inbox. */
export interface InboxSend {
  messageId: string;
  /** seq of its `message.created`: sends are taken in this order. */
  seq: number;
  /** The turn it belongs to: its own id (messageId), or the running turn it joined (steering). */
  turnId: string;
  ifBusy: Exclude<IfBusy, 'reject'>;
  model?: ModelOverride;
  replyTo?: SubtaskReplyTarget;
  /** A regeneration (store/session-inbox.ts, takeRegeneration): turn `turnId` answers user message `messageId` again. */
  regenerate?: true;
}

/**
 * What a session workflow's take of its inbox reads: the sends, and (since client answers were taken by
 * the API) the client tool answers its waiting turn has not announced yet.
 */
export type InboxItem = InboxSend | { toolAnswer: ToolResultInput };

export type SendVerdict =
  /** The message steers the running turn; `signal`: tell the turn (the first time this message is seen). */
  | { kind: 'joined'; turn: { turnId: string; userMessageId: string }; signal: boolean }
  /** Seen before: its turn is queued, running or done. */
  | { kind: 'known' }
  /** Its turn is queued; `cancel`: an interrupting send cancels the running turn (cancel its scope). */
  | { kind: 'queued'; cancel: boolean };

/**
 * Idle means nothing was waiting when the turn wrote its end (`endSeq`, its terminal event's seq).
 * A send recorded after that end does not count, though it may reach the queue before the session
 * workflow sees the turn's child workflow close: what a reader of the event log saw decides, not how
 * quickly the worker got there (a busy worker makes that gap seconds long).
 */
export function idleAtTurnEnd(queued: readonly QueuedAt[], endSeq: number): boolean {
  return queued.every((turn) => turn.seq !== undefined && turn.seq > endSeq);
}

/** Pending aborts a continue-as-new carries at most. */
const PENDING_ABORTS_CARRIED = 20;

export class SessionTurns {
  readonly queue: QueuedTurn[];
  running: RunningTurn | undefined;
  /** Sends accepted but still being recorded: ifBusy=reject counts them as work ahead. */
  recording = 0;
  /**
   * A compaction asked for through the API is running: sends are recorded meanwhile, but their turns
   * wait for it (they are to read its summary).
   */
  compacting = false;
  /** Turns this run has queued (or steered with): a send seen again never queues its turn twice. */
  private readonly accepted = new Set<string>();
  /** Steering messages signalled to the running turn: one a step of it did not read runs as a turn of its own. */
  private steering: string[] = [];
  /** Those of them the API joined (from the inbox): a step may have read one before this run took it. */
  private readonly steeringFromInbox = new Set<string>();
  /** Turns whose abort the API asked before this run started them. */
  private readonly abortsAsked = new Set<string>();
  /** Turns this run has started. */
  private readonly ran = new Set<string>();

  constructor(carried: readonly QueuedTurn[] = [], abortsAsked: readonly string[] = []) {
    this.queue = [...carried];
    for (const turnId of abortsAsked) this.abortsAsked.add(turnId);
  }

  state(): SessionState {
    return {
      runningTurnId: this.running && !this.running.ended ? this.running.turnId : null,
      queued: this.queue.map((turn) => turn.turnId),
    };
  }

  /** ifBusy=reject is refused while a turn runs, waits, or a send ahead of it is being recorded. */
  refusesReject(): boolean {
    return !!this.running || this.queue.length > 0 || this.recording > 0 || this.compacting;
  }

  /**
   * A revert, or a compaction asked for through the API, is refused while a turn waits in the queue or
   * a compaction runs (a running turn is the activity's to judge: it may have written its end already).
   */
  refusesRevert(): boolean {
    return this.queue.length > 0 || this.compacting;
  }

  /** The turn a steering send joins: the running one, unless it is being cancelled; none otherwise. */
  steerTarget(ifBusy: IfBusy): RunningTurn | undefined {
    return ifBusy === 'steer' && this.running && !this.running.cancelRequested ? this.running : undefined;
  }

  /**
   * A send's message is recorded (`steered`: the turn it asked to join, from steerTarget before the
   * recording): joins that turn, is known already, or queues its turn (first, for an interrupt).
   */
  recorded(send: SendRequest, recorded: RecordedSend, steered: RunningTurn | undefined): SendVerdict {
    // A turn whose last step has written its end is not joined: the message is a send like any other.
    if (steered && recorded.joined !== false) {
      const first = !this.accepted.has(send.messageId);
      if (first) {
        this.accepted.add(send.messageId);
        this.steering.push(send.messageId);
      }
      return { kind: 'joined', turn: { turnId: steered.turnId, userMessageId: steered.userMessageId }, signal: first };
    }
    if (this.accepted.has(send.messageId) || this.queue.some((queued) => queued.turnId === send.messageId) || recorded.turnStarted) {
      return { kind: 'known' };
    }
    // A steering message seen again after the turn it joined: answered by that turn, never run again.
    if (recorded.joinedTurn) return { kind: 'joined', turn: recorded.joinedTurn, signal: false };
    this.accepted.add(send.messageId);
    const turn: QueuedTurn = {
      turnId: send.messageId,
      seq: recorded.seq,
      ...(send.model ? { model: send.model } : {}),
      ...(send.replyTo ? { replyTo: send.replyTo } : {}),
    };
    if (send.ifBusy === 'interrupt') {
      const cancel = this.cancelRunning();
      this.queue.unshift(turn);
      return { kind: 'queued', cancel };
    }
    this.queue.push(turn);
    return { kind: 'queued', cancel: false };
  }

  /**
   * A send the API took, read from the inbox (every take reads all of them, so most are known). One that
   * joined the turn running here steers it; one that joined a turn not running here (a run that ended
   * without its turn's end) runs as a turn of its own.
   */
  taken(send: InboxSend): SendVerdict {
    const request: SendRequest = {
      messageId: send.messageId,
      ifBusy: send.ifBusy,
      ...(send.model ? { model: send.model } : {}),
      ...(send.replyTo ? { replyTo: send.replyTo } : {}),
    };
    if (send.turnId !== send.messageId) {
      // The running turn even once it returned: settled() then says whether a step of it read the message.
      const running = this.running && this.running.turnId === send.turnId ? this.running : undefined;
      if (running) {
        const verdict = this.recorded(request, { seq: send.seq, joined: true }, running);
        if (verdict.kind === 'joined' && verdict.signal) this.steeringFromInbox.add(send.messageId);
        return verdict;
      }
    }
    return this.recorded({ ...request, ifBusy: send.ifBusy === 'steer' ? 'queue' : send.ifBusy }, { seq: send.seq }, undefined);
  }

  /** An abort (or an interrupt): true when there is a running turn to cancel, not ended and not cancelled yet. */
  cancelRunning(): boolean {
    if (!this.running || this.running.ended || this.running.cancelRequested) return false;
    this.running.cancelRequested = true;
    return true;
  }

  /**
   * The API asked to abort turn `turnId` (the session's running or first waiting turn, as PostgreSQL
   * showed it): true when it is the running turn, to be cancelled now. One not started yet is aborted
   * as it starts (`start` says so); one this run has already run is over, and nothing happens.
   */
  abortAsked(turnId: string): boolean {
    if (this.running?.turnId === turnId && !this.running.ended) return this.cancelRunning();
    if (this.ran.has(turnId)) return false;
    this.abortsAsked.add(turnId);
    return false;
  }

  /**
   * A regeneration the API took, read from the inbox (every take reads it again until its turn ends):
   * its turn is queued once. True the first time.
   */
  regenerationTaken(send: InboxSend): boolean {
    const { turnId } = send;
    if (this.accepted.has(turnId) || this.ran.has(turnId) || this.queue.some((queued) => queued.turnId === turnId)) return false;
    this.accepted.add(turnId);
    this.queueRegenerate(turnId, send.messageId, send.seq, send.model);
    return true;
  }

  /** A revert with regenerate queues the reverted reply's turn again, as a new turn. */
  queueRegenerate(turnId: string, userMessageId: string, seq: number, model?: ModelOverride): void {
    this.queue.push({ turnId, userMessageId, seq, ...(model ? { model } : {}) });
  }

  hasWork(): boolean {
    return this.queue.length > 0 && !this.compacting;
  }

  /** Takes the next queued turn and makes it the running one. */
  /**
   * Aborts asked of turns not started yet: a continue-as-new carries them. The newest few only: one asked
   * of a turn that had ended elsewhere (the abort raced its end) never comes due, and must not pile up.
   */
  pendingAborts(): string[] {
    return [...this.abortsAsked].slice(-PENDING_ABORTS_CARRIED);
  }

  /** The next turn runs; `aborted`: its abort was asked before it started, so it is cancelled at once. */
  start(): { turn: QueuedTurn; running: RunningTurn; aborted: boolean } {
    const turn = this.queue.shift();
    if (!turn) throw new Error('No turn is queued');
    const aborted = this.abortsAsked.delete(turn.turnId);
    this.running = { turnId: turn.turnId, userMessageId: turn.userMessageId ?? turn.turnId, cancelRequested: aborted, ended: false };
    this.ran.add(turn.turnId);
    return { turn, running: this.running, aborted };
  }

  /** The running turn returned: it is no longer offered to aborts and tool results, and cannot be interrupted. */
  ended(): void {
    if (this.running) this.running.ended = true;
  }

  /**
   * The sends in flight at the turn's end are recorded: the turn is gone, and steering it did not read
   * (`read`: the messages a step of it read) runs as turns of their own, first and in order.
   */
  settled(read: readonly string[], readByTurn: readonly string[] = []): void {
    this.running = undefined;
    const seen = new Set(read);
    // A message the API joined counts as read when any step read it, told of it or not (TurnOutcome.read).
    const readAtAll = new Set(readByTurn);
    const unread = this.steering.filter(
      (messageId) => !seen.has(messageId) && !(this.steeringFromInbox.has(messageId) && readAtAll.has(messageId)),
    );
    this.steering = [];
    this.steeringFromInbox.clear();
    this.queue.unshift(...unread.map((messageId) => ({ turnId: messageId })));
  }

  /** Whether the session was idle when the turn that ended at `endSeq` wrote its end. */
  idleAt(endSeq: number): boolean {
    return idleAtTurnEnd(this.queue, endSeq);
  }
}
