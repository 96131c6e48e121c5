-- A regeneration is taken in PostgreSQL as a send is (docs/sessions.md): the revert and a row of the
-- session's inbox in one transaction, the row naming the user message whose turn runs again and, as its
-- turn, the new turn's id. `regenerate` tells it from a steering message joined to a running turn, which
-- also has a turn of another id: a regeneration is never detached into a send of its own, and the session's
-- workflow queues it as the turn it names.
ALTER TABLE session_inbox ADD COLUMN regenerate boolean NOT NULL DEFAULT false;
