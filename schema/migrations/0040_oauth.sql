-- OAuth 2.1 for the agents' MCP endpoints (api/oauth/, docs/mcp.md): the service is the authorization
-- server of its own MCP URLs.
--
-- Clients registered by dynamic registration (RFC 7591). A confidential client's secret is stored nowhere:
-- it is derived from the master key and the client id (api/oauth/clients.ts).
CREATE TABLE oauth_clients (
  client_id   text PRIMARY KEY,
  info        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_clients_created_idx ON oauth_clients (created_at);

-- An authorization asked (the client sent its user to /oauth/authorize), then decided by the user on
-- the consent page: allowed, it holds the code's hash until the code is exchanged, once.
CREATE TABLE oauth_authorizations (
  id              text PRIMARY KEY,
  client_id       text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  redirect_uri    text NOT NULL,
  code_challenge  text NOT NULL,
  scopes          text[] NOT NULL,
  state           text,
  resource        text,
  user_id         text REFERENCES users(id) ON DELETE CASCADE,
  granted_scopes  text[],
  code_hash       text UNIQUE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  decided_at      timestamptz
);
CREATE INDEX oauth_authorizations_created_idx ON oauth_authorizations (created_at);

-- A grant is a key of its user: listed and deleted with the others (GET /key). Its access token is the
-- key, valid until expires_at and replaced at each refresh; its refresh token rotates with it. `resource`
-- binds it to the one MCP URL it was asked for.
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN refresh_hash text UNIQUE;
ALTER TABLE api_keys ADD COLUMN refresh_expires_at timestamptz;
ALTER TABLE api_keys ADD COLUMN oauth_client_id text REFERENCES oauth_clients(client_id) ON DELETE CASCADE;
ALTER TABLE api_keys ADD COLUMN resource text;
