-- The Temporal identity of each worker (its pid and host, as its polls and its activities' attempts name
-- it), so that the worker that finds a dead one can ask Temporal for the activities the dead one had
-- started but not yet recorded in task_tokens (workers/dead-worker-recovery.ts). Null for a row a worker
-- of an earlier release claimed: only its recorded tokens are failed.
ALTER TABLE worker_lives ADD COLUMN identity text;
