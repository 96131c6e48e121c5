// One workflow per session (`session:<id>`) orders its turns: a send is an Update that records the
// user message and queues its turn; turns run one at a time as child workflows. `ifBusy` can reject
// a send while busy or interrupt the running turn. An idle session workflow ends; the next send
// starts it again (update-with-start), so nothing waits in memory between conversations.
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  executeChild,
  proxyActivities,
  setHandler,
  workflowInfo,
  ParentClosePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { MessagePart } from '../lib/events.ts';
import { AgentIdKey, KindKey, SessionIdKey, UserIdKey } from '../lib/search-attributes.ts';
import type { ModelOverride, SessionRef, TurnSettings } from './turn-types.ts';
import { turnWorkflow } from './turn.ts';

export type IfBusy = 'queue' | 'reject' | 'interrupt';

export interface SendInput {
  messageId: string;
  parts: MessagePart[];
  model?: ModelOverride;
  ifBusy: IfBusy;
}

export interface SendResult {
  messageId: string;
  /** seq of the user message's `message.created` event: the turn's events follow it. */
  seq: number;
}

export interface SessionState {
  runningTurnId: string | null;
  queued: string[];
}

export const sendUpdate = defineUpdate<SendResult, [SendInput]>('send');
export const abortUpdate = defineUpdate<{ aborted: boolean }>('abort');
export const stateQuery = defineQuery<SessionState>('state');

/** Rejection reason of a send with ifBusy=reject while a turn runs; the API answers 409. */
export const BUSY_REJECTION = 'SessionBusy';

export interface SessionWorkflowInput extends SessionRef {
  settings: TurnSettings;
  /** Turns carried over a continue-as-new. */
  queue?: QueuedTurn[];
}

interface QueuedTurn {
  turnId: string;
  model?: ModelOverride;
}

/** History stays small: a fresh run after this many turns. */
const TURNS_PER_RUN = 100;

export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}

export async function sessionWorkflow(input: SessionWorkflowInput): Promise<void> {
  const { recordUserMessage } = proxyActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 10 } });
  const queue: QueuedTurn[] = [...(input.queue ?? [])];
  let running: { turnId: string; scope: CancellationScope; cancelRequested: boolean } | undefined;
  // Sends are handled one after another so messages are recorded in the order they were accepted.
  let sendChain: Promise<unknown> = Promise.resolve();

  setHandler(stateQuery, () => ({ runningTurnId: running?.turnId ?? null, queued: queue.map((turn) => turn.turnId) }));

  setHandler(
    sendUpdate,
    (send) => {
      const result = sendChain.then(async () => {
        const recorded = await recordUserMessage({ sessionId: input.sessionId, messageId: send.messageId, parts: send.parts });
        const turn = { turnId: send.messageId, ...(send.model ? { model: send.model } : {}) };
        if (send.ifBusy === 'interrupt') {
          cancelRunning();
          queue.unshift(turn);
        } else {
          queue.push(turn);
        }
        return { messageId: send.messageId, seq: recorded.seq };
      });
      sendChain = result.catch(() => undefined);
      return result;
    },
    {
      validator: (send) => {
        if (send.ifBusy === 'reject' && (running || queue.length > 0)) throw new Error(`${BUSY_REJECTION}: a turn is running`);
      },
    },
  );

  /** Cancels the running turn; false when there is none, or it is already being cancelled. */
  function cancelRunning(): boolean {
    if (!running || running.cancelRequested) return false;
    running.cancelRequested = true;
    running.scope.cancel();
    return true;
  }

  setHandler(abortUpdate, () => ({ aborted: cancelRunning() }));

  let turns = 0;
  for (;;) {
    const hasWork = await condition(() => queue.length > 0, input.settings.sessionIdleMs);
    if (!hasWork) {
      // Idle: finish, but only once no send is half-way through its handler.
      await condition(allHandlersFinished);
      if (queue.length === 0) return;
      continue;
    }
    const turn = queue.shift()!;
    const scope = new CancellationScope();
    running = { turnId: turn.turnId, scope, cancelRequested: false };
    try {
      await scope.run(() =>
        executeChild(turnWorkflow, {
          workflowId: `turn:${input.sessionId}:${turn.turnId}`,
          args: [
            {
              sessionId: input.sessionId,
              userId: input.userId,
              agentId: input.agentId,
              revision: input.revision,
              turnId: turn.turnId,
              settings: input.settings,
              ...(turn.model ? { model: turn.model } : {}),
            },
          ],
          parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
          typedSearchAttributes: [
            { key: SessionIdKey, value: input.sessionId },
            { key: AgentIdKey, value: input.agentId },
            { key: UserIdKey, value: input.userId },
            { key: KindKey, value: 'turn' },
          ],
          staticSummary: `Turn ${turn.turnId} of session ${input.sessionId}`,
          staticDetails: `Agent ${input.agentId} revision ${input.revision}. Events: GET /session/${input.sessionId}/events`,
        }),
      );
    } catch {
      // A failed or aborted turn has already written its terminal event; the session goes on.
    } finally {
      running = undefined;
    }
    if (++turns >= TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof sessionWorkflow>({ ...input, queue });
    }
  }
}
