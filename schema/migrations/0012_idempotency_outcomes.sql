-- What became of the first request with an Idempotency-Key. `settled_at`: when it finished acting (null
-- while it acts, or if its process died meanwhile); a concurrent twin that must not race it (a send with
-- ifBusy=reject) waits for it. `refusal`: the problem+json it was refused with when that refusal was
-- definitive (a 4xx such as 409 for ifBusy=reject): its retries answer that again instead of acting.
-- An unknown outcome (a 503) leaves `refusal` null, so a retry acts again with the same ids.
ALTER TABLE idempotency_keys ADD COLUMN settled_at timestamptz, ADD COLUMN refusal jsonb;
-- Rows written before this migration belong to requests long finished.
UPDATE idempotency_keys SET settled_at = created_at;
