-- A compaction's summary is a message of its own (role `summary`): the model is sent it in place of the
-- conversation before it, while every message stays stored (README: "Long conversations").
ALTER TABLE messages DROP CONSTRAINT messages_role_check;
ALTER TABLE messages ADD CONSTRAINT messages_role_check CHECK (role IN ('user', 'assistant', 'tool', 'summary'));
