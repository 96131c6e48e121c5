-- Turns waiting for one of their user's RUNNING_TURNS_PER_USER places (0022): a step refused a place
-- leaves a row here, and a step that gives its place back wakes the user's longest-waiting turn with a
-- signal, so waiting turns cost nothing while they wait. `woken_at` marks a wake-up sent: the row stays
-- until its step takes a place, and one woken long ago (its signal lost with a worker) is woken again.
CREATE TABLE step_waiters (
  step_key     text PRIMARY KEY,
  user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workflow_id  text NOT NULL,
  since        timestamptz NOT NULL DEFAULT now(),
  woken_at     timestamptz
);
CREATE INDEX step_waiters_user_idx ON step_waiters (user_id, since);
