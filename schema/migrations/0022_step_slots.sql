-- Model steps running now, per user: a step holds a row while it runs (RUNNING_TURNS_PER_USER bounds
-- how many a user holds; beyond it a turn waits, durably, in its workflow). A row whose worker died
-- with it lapses at `expires_at`, the step's own start-to-close timeout.
CREATE TABLE step_slots (
  step_key    text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX step_slots_user_idx ON step_slots (user_id);
