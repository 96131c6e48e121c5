-- A child session opened by another agent's call spends against the budgets of the agents that called
-- it too (docs/tools.md, "Calling other agents"): each session and each budget hold names the agents up
-- its chain of calls, and an agent's spend counts the sessions and holds that name it.
ALTER TABLE sessions ADD COLUMN caller_agent_ids text[] NOT NULL DEFAULT '{}';
CREATE INDEX sessions_caller_agents_idx ON sessions USING gin (caller_agent_ids);
ALTER TABLE budget_holds ADD COLUMN caller_agent_ids text[] NOT NULL DEFAULT '{}';
CREATE INDEX budget_holds_caller_agents_idx ON budget_holds USING gin (caller_agent_ids);
