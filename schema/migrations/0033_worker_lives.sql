-- Each worker process's life, so that the activities a dead worker was running are tried again at once
-- rather than after their heartbeat timeout (workers/worker-life.ts). A worker holds the advisory lock
-- pg_advisory_lock(<WORKER_LIFE_LOCK_SPACE>, lock_key) on a connection of its own for as long as it
-- runs; PostgreSQL lets go of it when that connection closes, at once when the process dies (on a host
-- that vanishes, when the connection's keep-alives give up: seconds, set on that connection). The
-- worker keeps here the task tokens of the activities it runs. A live worker that finds a row whose
-- lock nobody holds marks it (unlocked_since); one still unlocked at a later look is deleted, and the
-- live worker of the same scope fails its activities with Temporal, which retries them on a live worker.
-- A worker whose connection dropped while it lived (a database restart) takes its key and row back
-- meanwhile, so its activities are not run twice.
--   scope           the Temporal namespace and task queue: a worker fails only activities of its own.
--   task_tokens     Temporal's task tokens of the activities running, written before each runs.
--   unlocked_since  when a sweep first found its lock free; cleared when its worker takes it back.
CREATE TABLE worker_lives (
  lock_key        integer PRIMARY KEY CHECK (lock_key > 0),
  scope           text NOT NULL,
  task_tokens     bytea[] NOT NULL DEFAULT '{}',
  started_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  unlocked_since  timestamptz
);
CREATE INDEX worker_lives_scope_idx ON worker_lives (scope);
