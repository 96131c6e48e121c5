-- A compaction's summary is a message of its own (role `summary`): the model is sent it in place of the
-- conversation before it, while every message stays stored (README: "Long conversations"). The wider
-- check is added NOT VALID: every existing row passed the narrower one it replaces, so no scan of the
-- table is needed (it would hold writes back on a large one), and new rows are checked all the same.
ALTER TABLE messages DROP CONSTRAINT messages_role_check;
ALTER TABLE messages ADD CONSTRAINT messages_role_check CHECK (role IN ('user', 'assistant', 'tool', 'summary')) NOT VALID;
