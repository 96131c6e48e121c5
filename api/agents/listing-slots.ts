// Listings of remote MCP servers' tools a user has running at once (MCP_LISTINGS_PER_USER), counted in
// this API process as its open streams are (api/streaming/stream-limiter.ts): a listing lives on this
// process and ends with it, so a count held here can never leak. With several API processes a user may
// run up to that many times the bound in all (docs/isolation.md).
import { RateLimitedError } from '../../lib/workflow-safe/errors.ts';

/** What a refused caller is told to wait: a listing ends by MCP_LIST_TIMEOUT_MS, most far sooner. */
export const LISTING_RETRY_AFTER_SECONDS = 5;

export interface ListingSlots {
  /**
   * Takes `count` places of `userId` at once, or none (RateLimitedError, 429 with Retry-After). Call
   * the returned function once, when the listings end.
   */
  take(userId: string, count: number): () => void;
  /** Places `userId` holds now, in this process. */
  held(userId: string): number;
  readonly perUser: number;
}

export function createListingSlots(perUser: number): ListingSlots {
  const held = new Map<string, number>();
  return {
    perUser,
    take(userId, count) {
      const now = held.get(userId) ?? 0;
      if (now + count > perUser) {
        throw new RateLimitedError(
          `Your user already has ${now} listings of MCP servers' tools running, and may have ${perUser} at once ` +
            `(MCP_LISTINGS_PER_USER); retry after ${LISTING_RETRY_AFTER_SECONDS} s`,
          LISTING_RETRY_AFTER_SECONDS,
        );
      }
      held.set(userId, now + count);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (held.get(userId) ?? count) - count;
        if (left > 0) held.set(userId, left);
        else held.delete(userId);
      };
    },
    held(userId) {
      return held.get(userId) ?? 0;
    },
  };
}
