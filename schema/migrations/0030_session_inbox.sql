-- Sends taken by the API before any worker sees them (store/session-inbox.ts): the API records the
-- message and its row here in one transaction, then wakes the session's workflow with a signal the
-- engine takes with no worker running. The workflow reads the rows in seq order (so the order of sends
-- is the order of their seqs, whatever order the signals arrive in) and marks them taken; a row leaves
-- when the turn it belongs to writes its end (store/events.ts, appendEvents). While a session has rows
-- it never reads `idle`, `ifBusy=reject` is refused, and a revert waits.
--   turn_id   the turn the message belongs to: its own id, or the running turn it joined (steering);
--   if_busy   what the send asked for when busy (queue, interrupt, steer; reject is decided by the API);
--   taken     the session workflow has read the row: the sweep wakes workflows of rows not taken.
CREATE TABLE session_inbox (
  message_id  text PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  user_id     text NOT NULL,
  seq         bigint NOT NULL,
  turn_id     text NOT NULL,
  if_busy     text NOT NULL CHECK (if_busy IN ('queue', 'interrupt', 'steer')),
  model       jsonb,
  reply_to    jsonb,
  taken       boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX session_inbox_session_idx ON session_inbox (session_id, seq);
CREATE INDEX session_inbox_user_idx ON session_inbox (user_id);
CREATE INDEX session_inbox_untaken_idx ON session_inbox (created_at) WHERE NOT taken;
