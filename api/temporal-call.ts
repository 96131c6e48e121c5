// Every call the API makes to Temporal goes through here. Each gets a deadline (TEMPORAL_CALL_TIMEOUT_MS
// unless the caller names its own), because without one a call waits forever: an Update waits for a
// worker, and an unreachable server is retried by the client. A Temporal that cannot be reached, or
// that does not confirm in time, becomes a 503 with Retry-After whose message names no address: the
// raw gRPC text (host:port included) goes to the server's log only. Such a 503 does not say whether
// Temporal carried the call out: a deadline that expires (or a connection that drops) after the request
// went out leaves it possibly in history, and the client's own retries of UNAVAILABLE hide whether an
// earlier attempt got through. So a call that acts words its 503 as "may or may not", with a safe retry.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { causeChain, DependencyUnavailableError } from '../lib/workflow-safe/errors.ts';

/**
 * gRPC status codes that mean "not now": CANCELLED (1), DEADLINE_EXCEEDED (4), RESOURCE_EXHAUSTED (8)
 * and UNAVAILABLE (14, the server cannot be reached).
 */
const UNAVAILABLE_CODES: ReadonlySet<unknown> = new Set([1, 4, 8, 14]);

export const TEMPORAL_UNAVAILABLE = 'The workflow engine did not answer in time; try again shortly';

/**
 * Temporal could not be reached or did not answer within the call's deadline. Other failed RPCs (a
 * workflow already completed, say) are left to the caller, which knows what they mean.
 */
export function isTemporalUnavailable(error: unknown): boolean {
  return causeChain(error).some(
    (cause) => cause instanceof WorkflowUpdateRPCTimeoutOrCancelledError || UNAVAILABLE_CODES.has((cause as { code?: unknown }).code),
  );
}

/**
 * gRPC status codes with which Temporal refuses a call outright, having done nothing: INVALID_ARGUMENT
 * (3), NOT_FOUND (5, e.g. no such namespace), PERMISSION_DENIED (7), FAILED_PRECONDITION (9) and
 * UNAUTHENTICATED (16). Such a call certainly did not happen, and an earlier attempt of it did not either.
 */
const REFUSAL_CODES: ReadonlySet<unknown> = new Set([3, 5, 7, 9, 16]);

/** Temporal refused the call without acting on it (see REFUSAL_CODES). */
export function isTemporalRefusal(error: unknown): boolean {
  return causeChain(error).some((cause) => REFUSAL_CODES.has((cause as { code?: unknown }).code));
}

/**
 * The call's workflow has ended (or never ran): what it asked of it can no longer happen. That includes
 * an Update the workflow closed under while it was in flight ("workflow update was aborted by closing
 * workflow", NOT_FOUND): seen on a Temporal server on PostgreSQL, where a turn that ends just as a late
 * client answer reaches it took that path more often than on the dev server.
 */
export function isWorkflowGone(error: unknown): boolean {
  return causeChain(error).some(
    (cause) => cause instanceof WorkflowNotFoundError || /already completed|not found|aborted by closing workflow/i.test(cause.message),
  );
}

/** gRPC status FAILED_PRECONDITION. */
const FAILED_PRECONDITION = 9;

/**
 * Temporal refused an Update because the workflow's task is failing and being retried (WorkflowNotReady,
 * FAILED_PRECONDITION): a worker died holding it, say, and another one is replaying the workflow. The
 * Update was not taken, and will be once the task succeeds, usually within seconds.
 */
export function isWorkflowNotReady(error: unknown): boolean {
  return causeChain(error).some(
    (cause) =>
      (cause as { code?: unknown }).code === FAILED_PRECONDITION &&
      /workflow task in failed state|unexpected workflow task failure/i.test(
        `${cause.message} ${(cause as { details?: unknown }).details ?? ''}`,
      ),
  );
}

/** Pause between tries of a call refused while its workflow's task is retried. */
const NOT_READY_RETRY_MS = 250;

/** What a call to Temporal needs of the API's dependencies (ApiDeps has them): the client, the deadline, the log. */
export interface TemporalCallDeps {
  temporal: { client: Client };
  config: Pick<Config, 'temporalCallTimeoutMs'>;
  logger: Logger;
}

export interface TemporalCallOptions {
  /** The deadline of the whole call, retries included; default TEMPORAL_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** What the 503 tells the client: for a call that acts, that it may or may not have happened, and how to retry safely. */
  unavailable?: string;
}

export async function callTemporal<T>(deps: TemporalCallDeps, call: () => Promise<T>, options: TemporalCallOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? deps.config.temporalCallTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        return await deps.temporal.client.withDeadline(deadline, call);
      } catch (error) {
        // Refused without being taken, for now only: tried again while the deadline allows.
        if (!isWorkflowNotReady(error) || Date.now() + NOT_READY_RETRY_MS >= deadline) throw error;
        await sleep(NOT_READY_RETRY_MS);
      }
    }
  } catch (error) {
    const notReady = isWorkflowNotReady(error);
    if (!isTemporalUnavailable(error) && !notReady) throw error;
    deps.logger.warn(
      { err: error, timeoutMs },
      notReady ? "the workflow's task was still being retried when the call's time was up" : 'Temporal did not answer in time',
    );
    throw new DependencyUnavailableError(options.unavailable ?? TEMPORAL_UNAVAILABLE);
  }
}
