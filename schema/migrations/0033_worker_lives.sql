-- Each worker process's life, so that the activities a dead worker was running are tried again at once
-- rather than after their heartbeat timeout (workers/worker-life.ts). A worker holds the advisory lock
-- pg_advisory_lock(<WORKER_LIFE_LOCK_SPACE>, lock_key) on a connection of its own for as long as it
-- runs; PostgreSQL lets go of it the moment that connection closes, which it does when the process
-- dies, however it dies. The worker keeps here the task tokens of the activities it runs;
-- a live worker of the same scope that finds a row whose lock nobody holds deletes it and fails its
-- activities with Temporal, which retries them on a live worker.
--   scope        the Temporal namespace and task queue: a worker fails only activities of its own.
--   task_tokens  Temporal's task tokens of the activities running (written a fraction of a second late).
CREATE TABLE worker_lives (
  lock_key     integer PRIMARY KEY CHECK (lock_key > 0),
  scope        text NOT NULL,
  task_tokens  bytea[] NOT NULL DEFAULT '{}',
  started_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX worker_lives_scope_idx ON worker_lives (scope);
