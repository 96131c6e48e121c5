-- Revisions that are not live yet (docs/bundle.md, "Staged revisions, promote, rollback and canaries"): a deploy can stage a revision, and promote,
-- rollback and traffic shares decide which revision new sessions start on. `current_revision` keeps
-- its meaning for every reader: the live revision. `latest_revision` numbers the next deploy, staged
-- or not. `traffic` maps a revision (as text) to the percent of new sessions it gets; the live
-- revision gets the rest. A revision's `first_live_at` tells a staged revision (never live) from a
-- retired one. Every change is a row of `agent_revision_changes`, with the key that made it.
ALTER TABLE agents ADD COLUMN latest_revision integer;
UPDATE agents SET latest_revision = current_revision;
ALTER TABLE agents ALTER COLUMN latest_revision SET NOT NULL;
ALTER TABLE agents ADD COLUMN traffic jsonb NOT NULL DEFAULT '{}';

ALTER TABLE agent_revisions ADD COLUMN first_live_at timestamptz;
UPDATE agent_revisions SET first_live_at = created_at;

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

-- The API publishes the `agent.changed` event itself; a delivery it recorded but could not start is
-- found by the housekeeping pass through this index (pending and never attempted).
CREATE INDEX webhook_deliveries_unstarted_idx ON webhook_deliveries (created_at) WHERE status = 'pending' AND attempts = 0;
