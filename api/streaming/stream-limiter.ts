// Connections a user holds open (SSE streams, streamed and waiting sends, approvals read with ?wait=),
// per user rather than per key, so minting keys does not multiply them; counted in this API process:
// a connection lives on one process's socket and ends with it, so a count held there can never leak,
// the way a shared counter would when a process dies with streams open. With several API processes a
// user may hold up to that many times OPEN_STREAMS_PER_USER in all (docs/isolation.md).
import type { Response } from 'express';
import { StreamLimitError } from '../../lib/workflow-safe/errors.ts';

/** What a refused client is told to wait: streams end at any moment, so a short, fixed hint. */
export const STREAM_LIMIT_RETRY_AFTER_SECONDS = 5;

export interface StreamLimiter {
  /** Counts one connection of `userId` until `res` closes; throws StreamLimitError when the user holds `perUser`. */
  hold(userId: string, res: Response): void;
  /** Connections `userId` holds now, in this process. */
  open(userId: string): number;
  readonly perUser: number;
}

export function createStreamLimiter(options: { perUser: number }): StreamLimiter {
  const open = new Map<string, number>();
  return {
    perUser: options.perUser,
    hold(userId, res) {
      // Already gone: no stream will be written, and no 'close' would come to uncount it.
      if (res.closed) return;
      const count = open.get(userId) ?? 0;
      if (count >= options.perUser) {
        throw new StreamLimitError(
          `Your user already holds ${options.perUser} open streams and waiting requests (OPEN_STREAMS_PER_USER), ` +
            `whichever of its keys opened them; close one or retry after ${STREAM_LIMIT_RETRY_AFTER_SECONDS} s`,
          STREAM_LIMIT_RETRY_AFTER_SECONDS,
        );
      }
      open.set(userId, count + 1);
      // 'close' follows the end of every response, finished or cut off, exactly once.
      res.once('close', () => {
        const left = (open.get(userId) ?? 1) - 1;
        if (left > 0) open.set(userId, left);
        else open.delete(userId);
      });
    },
    open(userId) {
      return open.get(userId) ?? 0;
    },
  };
}
