-- A custom command with `subtask: true` runs in a session of its own, the child of the session it was
-- called from; the child's reply comes back into that parent. Deleting the parent (with its agent)
-- leaves the child, which only forgets where it came from.
ALTER TABLE sessions ADD COLUMN parent_session_id text REFERENCES sessions(id) ON DELETE SET NULL;
CREATE INDEX sessions_parent_idx ON sessions (parent_session_id) WHERE parent_session_id IS NOT NULL;
