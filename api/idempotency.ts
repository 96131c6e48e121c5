// Idempotency-Key on the requests that act: sends (POST /session/<id>) and POST /approval. A client
// that got no answer (a timeout, a 503 while the workers were slow) retries with the same key and
// must not make a second message or ask its person twice. The first request with a key records the
// ids it acts with (its message id, its approval id) before acting; a retry within 24 h acts with
// those same ids, which the session and approval workflows already treat as one request, so it
// does nothing new and answers the first request's result.
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Db } from '../store/db.ts';
import { claimIdempotencyKey } from '../store/idempotency-keys.ts';
import { IdempotencyKeyReusedError } from '../lib/errors.ts';
import type { HeaderSpecs } from './route.ts';

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** The header's declaration, shared by the routes that take it (validated and published in /openapi.json). */
export const IDEMPOTENCY_KEY_HEADERS: HeaderSpecs = {
  'Idempotency-Key': {
    description:
      'Makes a retry safe: the same key (per user and route) within 24 h answers for the first request with it and does ' +
      'nothing else. Reusing a key for a different request (another body or target) is 422. At most 255 printable ' +
      'ASCII characters, e.g. a UUID.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
};

/** Object keys sorted at every level, so the same JSON in another order is the same request. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

export interface IdempotentIds<T> {
  ids: T;
  /** A retry (or a concurrent twin) of an earlier request with the same key: act with its ids. */
  replayed: boolean;
}

/**
 * The ids this request acts with: fresh ones without a key or for the first use of a key, else
 * those of the first request with the key. `request` is what must match for a retry (the target and
 * the body, not how the answer is wanted).
 */
export async function idempotentIds<T>(
  db: Db,
  req: Request,
  input: { userId: string; route: string; request: unknown; fresh: () => T },
): Promise<IdempotentIds<T>> {
  const key = req.get('idempotency-key');
  if (key === undefined) return { ids: input.fresh(), replayed: false };
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(canonical(input.request)) ?? '')
    .digest('hex');
  const record = await claimIdempotencyKey(db, {
    userId: input.userId,
    route: input.route,
    key,
    fingerprint,
    result: input.fresh(),
    ttlMs: IDEMPOTENCY_KEY_TTL_MS,
  });
  if (record.fingerprint !== fingerprint) {
    throw new IdempotencyKeyReusedError(
      `This Idempotency-Key was used within the last 24 h for a different ${input.route} request; use a new key for a new request`,
    );
  }
  return { ids: record.result, replayed: !record.created };
}
