-- The `memory` tool server: notes an agent keeps across its sessions, by key. They belong to the agent
-- (and go with it); their number and size are bounded by the service (contract/tool-servers.ts).
CREATE TABLE agent_memories (
  agent_id text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  key text NOT NULL,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, key)
);
CREATE INDEX agent_memories_recent ON agent_memories (agent_id, updated_at DESC);
