-- Revisions that are not live yet (docs/bundle.md, "Staged revisions, promote, rollback and canaries"):
-- a deploy can stage a revision, and promote, rollback and traffic shares decide which revision new
-- sessions start on. `current_revision` keeps its meaning for every reader: the live revision.
-- `latest_revision` numbers the next deploy, staged or not; it defaults to 0 and is read as at least
-- `current_revision`, so an API of the release before (which inserts agents without it and moves only
-- `current_revision`) keeps working during a rolling upgrade. `traffic` maps a revision (as text) to the
-- percent of new sessions it gets; the live revision gets the rest. A revision's `never_live` tells a
-- staged revision that has served no session from a retired one (a constant default: no table rewrite).
-- Every change is a row of `agent_revision_changes`, with the key that made it.
ALTER TABLE agents ADD COLUMN latest_revision integer NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN traffic jsonb NOT NULL DEFAULT '{}';
ALTER TABLE agent_revisions ADD COLUMN never_live boolean NOT NULL DEFAULT false;

CREATE TABLE agent_revision_changes (
  id           bigserial PRIMARY KEY,
  agent_id     text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('deployed', 'staged', 'promoted', 'rolled_back', 'traffic')),
  revision     integer,
  live_before  integer,
  live_after   integer NOT NULL,
  traffic      jsonb NOT NULL DEFAULT '{}',
  key_id       text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_revision_changes_agent_idx ON agent_revision_changes (agent_id, id DESC);

-- The API publishes the `agent.changed` event itself: its deliveries are recorded in the change's
-- transaction and started after it commits. `started_at` marks a delivery whose workflow is known to
-- run; the housekeeping pass starts those recorded and never marked (the process died in between).
ALTER TABLE webhook_deliveries ADD COLUMN started_at timestamptz;
CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (created_at)
  WHERE status = 'pending' AND attempts = 0 AND started_at IS NULL;
