// Idempotency of webhook trigger firings. The route is public (the URL is the secret), so a firing's
// key is scoped to its trigger: the user, the agent and the URL's suffix (hashed: generated suffixes
// are secrets that the database does not otherwise hold). Webhook senders retry a 5xx on their own,
// and most send no Idempotency-Key but a delivery id that stays the same when they deliver again:
// that id is the key when no Idempotency-Key is given.
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { HeaderSpecs } from '../route.ts';
import { IDEMPOTENCY_KEY_HEADERS, IDEMPOTENCY_KEY_PATTERN } from '../idempotency.ts';

/** Delivery ids that stay the same on a redelivery, in the order they are looked at. */
const DELIVERY_ID_HEADERS: Record<string, string> = {
  'webhook-id': 'Standard Webhooks (https://www.standardwebhooks.com)',
  'svix-id': 'Svix',
  'X-GitHub-Delivery': 'GitHub',
};

export const TRIGGER_IDEMPOTENCY_HEADERS: HeaderSpecs = {
  'Idempotency-Key': {
    ...IDEMPOTENCY_KEY_HEADERS['Idempotency-Key']!,
    description:
      'Makes a retry safe: the same key on the same trigger URL within 24 h answers the first firing (the same 202, the same ' +
      'sessionId) and fires nothing else. Reusing it with another body is 422. At most 255 printable ASCII characters.',
  },
  ...Object.fromEntries(
    Object.entries(DELIVERY_ID_HEADERS).map(([name, sender]) => [
      name,
      {
        description:
          `${sender} delivery id: the Idempotency-Key of the firing when that header is absent (the first of these present ` +
          'counts; ignored unless 1 to 255 printable ASCII characters).',
        schema: { type: 'string' },
      },
    ]),
  ),
};

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
