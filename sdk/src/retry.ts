// When and how long to wait before trying a request again. Exponential backoff with full jitter (so
// many clients retrying after one outage spread out), capped, and never shorter than a server's
// Retry-After: a 429 says exactly when the budget refills.
import { retryAfterSeconds } from './errors.ts';

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A Retry-After beyond this is not waited for: the error goes to the caller, who may decide. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Whether an answer with this status may be retried. 429 and 503 never started the action (or, for
 * 503, are safe with an Idempotency-Key); other 5xx only when the request is idempotent.
 */
export function isRetryableStatus(status: number, idempotent: boolean): boolean {
  if (status === 429 || status === 503) return true;
  if (status === 408) return idempotent;
  return status >= 500 && idempotent;
}

/** Milliseconds to wait before attempt `retry` (1 for the first retry), or undefined when the server asks for too long. */
export function retryDelayMs(retry: number, headers?: Headers): number | undefined {
  const backoff = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** (retry - 1));
  const jittered = backoff / 2 + Math.random() * (backoff / 2);
  const asked = headers ? retryAfterSeconds(headers) : undefined;
  if (asked === undefined) return jittered;
  const askedMs = asked * 1000;
  if (askedMs > MAX_RETRY_AFTER_MS) return undefined;
  // A little jitter on top, so clients told the same second do not return in the same millisecond.
  return askedMs + Math.random() * 100;
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
