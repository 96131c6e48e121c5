-- MCP tool calls that started a turn and have not answered yet (api/mcp/): a client's
-- `notifications/cancelled` names only its request id (and its Mcp-Session-Id), and may reach another
-- API process than the one holding the call, so the turn it cancels is looked up here, by the key that
-- made the call (another key of the same user cancels nothing). A row goes when its call answers;
-- housekeeping deletes those a process left behind (it died mid-call) after an hour.
CREATE TABLE mcp_tool_calls (
  user_id        text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_id         text NOT NULL,
  client_session text NOT NULL,
  request_id     text NOT NULL,
  session_id     text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  turn_id        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key_id, client_session, request_id)
);
CREATE INDEX mcp_tool_calls_created_idx ON mcp_tool_calls (created_at);
