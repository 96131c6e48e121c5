// Idempotency of webhook trigger firings. The route is public (the URL is the secret), so a firing's
// key is scoped to its trigger: the user, the agent and the URL's suffix (hashed: generated suffixes
// are secrets that the database does not otherwise hold). Webhook senders retry a 5xx on their own,
// and most send no Idempotency-Key but a delivery id that stays the same when they deliver again:
// that id is the key when no Idempotency-Key is given.
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency.ts';
import { DELIVERY_ID_HEADERS } from '../../contract/operations/triggers.ts';

/** The firing's key: the Idempotency-Key header, else the sender's delivery id (named by its header). */
export function firingKey(req: Request): string | undefined {
  const explicit = req.get('idempotency-key');
  if (explicit !== undefined) return explicit;
  for (const name of Object.keys(DELIVERY_ID_HEADERS)) {
    const value = req.get(name);
    if (value !== undefined && IDEMPOTENCY_KEY_PATTERN.test(value)) return `${name.toLowerCase()}:${value}`;
  }
  return undefined;
}

/** The idempotency scope ("route") of one trigger URL. */
export function firingScope(agentId: string, suffix: string): string {
  return `POST /trigger/${agentId}/${createHash('sha256').update(suffix).digest('hex').slice(0, 32)}`;
}
