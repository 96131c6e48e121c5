// Idempotency-Key on the requests that act: sends (POST /session/<id>), POST /approval, runs and webhook
// trigger firings. A client that got no answer (a timeout, a 503 while the workers were slow) retries
// with the same key and must not make a second message, session or question. The first request with a
// key records the ids it acts with (its message id, its approval id, its session id) before acting; a
// retry within 24 h acts with those same ids, which the workflows already treat as one request, so it
// does nothing new and answers the first request's result. A definitive refusal of the first request
// (a 4xx, e.g. 409 for ifBusy=reject) is recorded too and answered again: the retry does not act.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'express';
import type { Db } from '../store/db.ts';
import {
  claimIdempotencyKey,
  readIdempotencyKey,
  settleIdempotencyKey,
  type IdempotencyKeyRef,
  type StoredRefusal,
} from '../store/idempotency-keys.ts';
import { IdempotencyKeyReusedError, RepeatedRefusalError, ServiceError } from '../lib/workflow-safe/errors.ts';

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** How often a twin looks whether the first request with its key has acted. */
const TWIN_POLL_MS = 100;

/** 1 to 255 printable ASCII characters: what the header accepts, and what a sender's delivery id must be to count as one. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

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

export interface IdempotentRequest<T> {
  userId: string;
  /** Scopes the key: the same key on another route (or another trigger) is another request. */
  route: string;
  /** What must match for a retry (the target and the body, not how the answer is wanted). */
  request: unknown;
  fresh: () => T;
  /** The key when it is not the Idempotency-Key header (a webhook sender's delivery id); undefined: none. */
  key?: string | undefined;
}

export interface IdempotentIds<T> {
  ids: T;
  /** A retry (or a concurrent twin) of an earlier request with the same key: act with its ids. */
  replayed: boolean;
}

function keyOf(req: Request, input: { key?: string | undefined }): string | undefined {
  return 'key' in input ? input.key : req.get('idempotency-key');
}

async function claim<T>(db: Db, ref: IdempotencyKeyRef, input: IdempotentRequest<T>) {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(canonical(input.request)) ?? '')
    .digest('hex');
  const record = await claimIdempotencyKey(db, { ...ref, fingerprint, result: input.fresh(), ttlMs: IDEMPOTENCY_KEY_TTL_MS });
  if (record.fingerprint !== fingerprint) {
    throw new IdempotencyKeyReusedError(
      `This Idempotency-Key was used within the last 24 h for a different ${input.route} request; use a new key for a new request`,
    );
  }
  return record;
}

/** A refusal that stands for good: a 4xx, except 429 (which says "later"). */
function definitiveRefusal(error: unknown): StoredRefusal | null {
  if (!(error instanceof ServiceError) || error.status < 400 || error.status >= 500 || error.status === 429) return null;
  const extra = error.extra();
  return {
    status: error.status,
    type: error.type,
    title: error.title,
    detail: error.message,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/**
 * Runs `act` with the ids this request acts with: fresh ones without a key or for the first use of a
 * key, else those of the first request with the key; then records its outcome under the key. A
 * retry of a request refused for good answers that refusal and does not act. With `waitForFirstMs`,
 * a twin arriving while the first request still acts waits (up to that long) for its outcome rather
 * than race it; after that it acts with the same ids, as a retry does.
 */
export async function actIdempotently<T, R>(
  db: Db,
  req: Request,
  input: IdempotentRequest<T> & { waitForFirstMs?: number },
  act: (claimed: IdempotentIds<T>) => Promise<R>,
): Promise<R> {
  const key = keyOf(req, input);
  if (key === undefined) return act({ ids: input.fresh(), replayed: false });
  const ref = { userId: input.userId, route: input.route, key };
  let record = await claim(db, ref, input);
  const replayed = !record.created;
  const until = Date.now() + (input.waitForFirstMs ?? 0);
  while (replayed && !record.settled && Date.now() < until) {
    await sleep(TWIN_POLL_MS);
    record = { ...((await readIdempotencyKey<T>(db, ref, IDEMPOTENCY_KEY_TTL_MS)) ?? record), created: false };
  }
  if (record.refusal) throw new RepeatedRefusalError(record.refusal);
  let refusal: StoredRefusal | null = null;
  try {
    return await act({ ids: record.result, replayed });
  } catch (error) {
    refusal = definitiveRefusal(error);
    throw error;
  } finally {
    // Bookkeeping only: the request has acted (or not) either way, so a failure here is logged, not answered.
    await settleIdempotencyKey(db, ref, refusal).catch((error: unknown) =>
      req.log.warn({ err: error }, 'could not record the outcome of an idempotent request'),
    );
  }
}
