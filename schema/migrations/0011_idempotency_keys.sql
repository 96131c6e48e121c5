-- Idempotency-Key of a request that acts (a send, POST /approval): per user and route, the first
-- request with a key inserts its row, with the ids it acts with, before it acts. A retry, or a
-- concurrent twin, finds the row and acts with the same ids, which the workflows already treat as
-- one. `fingerprint` (SHA-256 of the request) tells a retry from another request reusing the key.
-- Rows older than 24 h no longer count and are deleted by the API's housekeeping.
CREATE TABLE idempotency_keys (
  user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  route        text NOT NULL,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  result       jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, route, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
