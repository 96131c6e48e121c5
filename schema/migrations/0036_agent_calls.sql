-- Agents that call agents (docs/tools.md, "Calling other agents"). A revision keeps the agents its
-- bundle may call as deploy resolved them (the callee's id, the revision it is pinned to, the
-- description its tool shows the model), so a step builds its tools without reading other agents.
ALTER TABLE agent_revisions ADD COLUMN callable_agents jsonb NOT NULL DEFAULT '[]';
-- A child session opened by another agent's tool call: the call that opened it, and how deep in a
-- chain of calls it is (1 for a child of a session a person opened), which the depth limit reads.
ALTER TABLE sessions ADD COLUMN parent_tool_call_id text;
ALTER TABLE sessions ADD COLUMN call_depth integer NOT NULL DEFAULT 0;
