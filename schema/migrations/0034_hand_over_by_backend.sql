-- Which PostgreSQL backend (pg_backend_pid()) stored a send, a client's tool answer, or an approval's
-- answer, so that a hand-over lost with the API process that stored it is made again within seconds
-- (api/housekeeping.ts). The API hands each over itself right after its commit; the sweep used to wait
-- 30 s for a workflow to take it, since a slow worker is not a lost hand-over. Now a row whose storing
-- backend has gone (its process died with its connections: pg_stat_activity no longer lists it) is
-- handed over by the next sweep. A backend gone for another reason (its pooled connection closed when
-- idle) only brings a hand-over again, which the workflows take once. Rows from before this migration
-- have none and wait the 30 s. No default is written into old rows (no table rewrite).
ALTER TABLE session_inbox ADD COLUMN stored_by_backend integer;
ALTER TABLE session_inbox ALTER COLUMN stored_by_backend SET DEFAULT pg_backend_pid();
ALTER TABLE client_tool_answers ADD COLUMN stored_by_backend integer;
ALTER TABLE client_tool_answers ALTER COLUMN stored_by_backend SET DEFAULT pg_backend_pid();
ALTER TABLE approvals ADD COLUMN answered_by_backend integer;
