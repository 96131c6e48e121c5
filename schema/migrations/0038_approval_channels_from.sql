-- A question asked in a child session of an agent call goes over the channels of the agent that
-- started the chain of calls, the one its person talks to (docs/tools.md, "Calling other agents"):
-- the approval names that agent and revision, whose `userChannels` its dispatches' positions index.
-- NULL: the asking agent's own channels.
ALTER TABLE approvals ADD COLUMN channels_agent_id text;
ALTER TABLE approvals ADD COLUMN channels_revision integer;
