-- A regeneration is taken in PostgreSQL as a send is (docs/sessions.md): the revert and a row of the
-- session's inbox in one transaction, the row naming the user message whose turn runs again and, as its
-- turn, the new turn's id. `regenerate` tells it from a steering message joined to a running turn, which
-- also has a turn of another id: a regeneration is never detached into a send of its own, and the session's
-- workflow queues it as the turn it names.
ALTER TABLE session_inbox ADD COLUMN regenerate boolean NOT NULL DEFAULT false;
-- Workers are deployed before the API (docs/operating.md): a worker of the release before would read such
-- a row as a send of the user message, and run it as a turn its end never takes out of the inbox.
