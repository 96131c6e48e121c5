-- Remote MCP servers a user registers (PUT /mcp/<id>) and names in a bundle's `mcps` beside the built-in
-- ones. Header values are stored as written: credentials go in secrets, named as {{secrets.KEY}} and
-- filled in only inside the activity that connects (README: "Remote MCP servers").
CREATE TABLE mcp_servers (
  user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  id           text NOT NULL,
  url          text NOT NULL,
  headers      jsonb NOT NULL DEFAULT '{}',
  description  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, id)
);

-- The tools each remote server offered at deploy, by server id: frozen into the revision, so a revision
-- always offers the model the same tools (a redeploy lists them again).
ALTER TABLE agent_revisions ADD COLUMN remote_tools jsonb NOT NULL DEFAULT '{}';
