// How a model step's attempt ends once its stream has stopped, when it has no answer to store: Temporal
// cancelled it, its turn was aborted, its output went past a limit, or the provider failed. Pure: the
// step (activities/turn/model-step.ts) turns the decision into a thrown failure or a compaction.
import { FAILURE, type FailureType } from '../lib/workflow-safe/failures.ts';

/** A provider's error as the step classified it (activities/model/errors.ts). */
export interface ClassifiedStreamError {
  retryable: boolean;
  message: string;
  retryAfterMs?: number;
  /** The provider refused the request as longer than the model's window (the window, when it named one). */
  contextLength?: { windowTokens?: number };
}

export interface StreamStop {
  /** Temporal cancelled the activity (the turn's abort reached it through a heartbeat). */
  cancelled: boolean;
  /** An abort notice for the turn reached this worker first (activities/turn/abort-notices.ts). */
  aborted: boolean;
  /** What the output limit said when it stopped the stream (core/output-limit.ts). */
  limitError?: string;
  /** The provider's error, classified. */
  error?: ClassifiedStreamError;
  /** The conversation's size as checked before the call, when the step may compact it. */
  checked?: { tokens: number; windowTokens: number };
}

export type StepEnding =
  /** The step's answer is stored. */
  | { kind: 'answer' }
  /** Thrown as a cancellation: the turn ends aborted. */
  | { kind: 'cancelled' }
  /** Reported as cancelled to Temporal (activities/turn/confirm-abort.ts). */
  | { kind: 'aborted' }
  /** The turn fails at once: another attempt would fail the same. `spanError`: the chat span's error type. */
  | { kind: 'failed'; type: FailureType; message: string; spanError: string }
  /** Another attempt, after `retryAfterMs` when the provider named it. */
  | { kind: 'retry'; type: FailureType; message: string; retryAfterMs?: number; spanError: string }
  /** Too long for the model: compact to `windowTokens` and run the step again. `learnedWindow`: the window the provider named. */
  | { kind: 'compact'; message: string; tokensBefore: number; windowTokens: number; learnedWindow?: number; spanError: string };

/** Whether the provider billed the attempt: it began to answer, or the call was cut (abort, limit) after it was sent. */
export function providerAnswered(streamedAnswer: boolean, stop: Pick<StreamStop, 'cancelled' | 'aborted' | 'limitError'>): boolean {
  return streamedAnswer || stop.cancelled || stop.aborted || stop.limitError !== undefined;
}

/** In this order: a cancellation, an abort, the output limit, then the provider's error. */
export function stepEnding(stop: StreamStop): StepEnding {
  if (stop.cancelled) return { kind: 'cancelled' };
  if (stop.aborted) return { kind: 'aborted' };
  if (stop.limitError !== undefined) {
    return { kind: 'failed', type: FAILURE.modelOutputLimit, message: stop.limitError, spanError: FAILURE.modelOutputLimit };
  }
  const { error } = stop;
  if (!error) return { kind: 'answer' };
  const spanError = error.contextLength ? 'context_length_exceeded' : error.retryable ? FAILURE.modelTransient : FAILURE.modelRejected;
  // Too long for the model: compact to the window it named (else the one checked), and try once more.
  if (error.contextLength && stop.checked) {
    return {
      kind: 'compact',
      message: error.message,
      tokensBefore: stop.checked.tokens,
      windowTokens: error.contextLength.windowTokens ?? stop.checked.windowTokens,
      ...(error.contextLength.windowTokens ? { learnedWindow: error.contextLength.windowTokens } : {}),
      spanError,
    };
  }
  if (!error.retryable) return { kind: 'failed', type: FAILURE.modelRejected, message: error.message, spanError };
  return {
    kind: 'retry',
    type: FAILURE.modelTransient,
    message: error.message,
    spanError,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}
