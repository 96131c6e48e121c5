// Open SSE streams per API key (event streams and streamed sends alike), counted in this API process:
// a stream lives on one process's socket and ends with it, so a count held there can never leak, the
// way a shared counter would when a process dies with streams open. With several API processes a key
// may hold up to that many times SSE_STREAMS_PER_KEY streams in all (README, "API conventions").
import type { Response } from 'express';
import { RateLimitedError } from '../../lib/errors.ts';

/** What a refused client is told to wait: streams end at any moment, so a short, fixed hint. */
export const STREAM_LIMIT_RETRY_AFTER_SECONDS = 5;

export interface StreamLimiter {
  /** Counts one stream for `keyId` until `res` closes; throws RateLimitedError when the key holds `perKey`. */
  hold(keyId: string, res: Response): void;
  /** Streams `keyId` holds now. */
  open(keyId: string): number;
}

export function createStreamLimiter(options: { perKey: number }): StreamLimiter {
  const open = new Map<string, number>();
  return {
    hold(keyId, res) {
      // Already gone: no stream will be written, and no 'close' would come to uncount it.
      if (res.closed) return;
      const count = open.get(keyId) ?? 0;
      if (count >= options.perKey) {
        throw new RateLimitedError(
          `This API key already holds ${options.perKey} open event streams (SSE_STREAMS_PER_KEY); close one or retry after ${STREAM_LIMIT_RETRY_AFTER_SECONDS} s`,
          STREAM_LIMIT_RETRY_AFTER_SECONDS,
        );
      }
      open.set(keyId, count + 1);
      // 'close' follows the end of every response, finished or cut off, exactly once.
      res.once('close', () => {
        const left = (open.get(keyId) ?? 1) - 1;
        if (left > 0) open.set(keyId, left);
        else open.delete(keyId);
      });
    },
    open(keyId) {
      return open.get(keyId) ?? 0;
    },
  };
}
