// A hand-over the API makes after its commit (a send's wake-up, an answer's signal, sent once the request
// is answered: api/hand-offs.ts) is lost only if the API dies in between. The row remembers the backend that stored it (schema/migrations/0034);
// once that backend is gone from pg_stat_activity, the process that would have handed it over is
// likely gone too, and the sweep hands it over without waiting for the long patience meant for slow
// workers. A backend gone for another reason (a pooled connection closed when idle) costs one more
// hand-over, which the workflow takes once.

/**
 * How long after its store a row whose backend has gone counts as orphaned: past the time a live API
 * usually takes to send its hand-over, so one is rarely raced (a race costs a second signal, taken once).
 */
export const ORPHANED_AFTER_MS = 2_000;

/** SQL: the backend named in `column` is no longer connected (false for rows that name none). */
export function backendGone(column: string): string {
  return `(${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ${column}))`;
}
