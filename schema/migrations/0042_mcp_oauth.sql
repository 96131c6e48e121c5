-- OAuth for the remote MCP servers users register (lib/mcp/oauth/, docs/tools.md): the service is the
-- client, each user signs in to each server once, and the tokens are kept per user and server.
--
-- How a server is signed in to: NULL for headers only, else {type: 'oauth', scopes?, clientId?, clientSecret?}
-- (clientSecret names one of the user's secrets as {{secrets.KEY}}; never a value).
ALTER TABLE mcp_servers ADD COLUMN auth jsonb;

-- A user's sign-in to one of their servers. The sealed part (AES-256-GCM, store/secret-box.ts, bound to
-- the user and server) holds the tokens and the registered client's credentials; nothing else here is a
-- secret. `server_url` is the URL signed in for: a server moved to another URL is signed in to again.
-- `needs_sign_in` is set when a refresh is refused for good (the grant was revoked or expired): the tokens
-- are dropped and the user is asked again.
CREATE TABLE mcp_connections (
  user_id               text NOT NULL,
  server_id             text NOT NULL,
  server_url            text NOT NULL,
  authorization_server  text NOT NULL,
  metadata              jsonb NOT NULL,
  resource              text,
  scopes                text[] NOT NULL DEFAULT '{}',
  key_id                text,
  nonce                 bytea,
  ciphertext            bytea,
  auth_tag              bytea,
  expires_at            timestamptz,
  needs_sign_in         text,
  connected_at          timestamptz NOT NULL DEFAULT now(),
  refreshed_at          timestamptz,
  PRIMARY KEY (user_id, server_id),
  FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);

-- A sign-in under way: the user was sent to the authorization server, whose callback brings `state` back.
-- Only its hash is kept; the PKCE verifier and the client's credentials are sealed. Single use (`used_at`),
-- and good for a short while only (the route says how long).
CREATE TABLE mcp_connect_states (
  state_hash            text PRIMARY KEY,
  user_id               text NOT NULL,
  server_id             text NOT NULL,
  server_url            text NOT NULL,
  authorization_server  text NOT NULL,
  metadata              jsonb NOT NULL,
  resource              text,
  scopes                text[] NOT NULL DEFAULT '{}',
  key_id                text NOT NULL,
  nonce                 bytea NOT NULL,
  ciphertext            bytea NOT NULL,
  auth_tag              bytea NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  used_at               timestamptz,
  FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);
CREATE INDEX mcp_connect_states_created_idx ON mcp_connect_states (created_at);

-- A turn whose tool call finds its server not signed in waits on an approval that asks its user to
-- connect (workflows/connect-wait.ts): `connect_server` names the server. Such an approval is answered
-- only by a sign-in to that server finishing (the callback answers every one open), never by a choice;
-- its link starts the sign-in.
ALTER TABLE approvals ADD COLUMN connect_server text;

-- Clients the service registered for a user's server at its authorization server (RFC 7591), reused by
-- later sign-ins with the same redirect URI rather than registered again (a consent screen each time,
-- clients left behind, registration limits). Sealed: a registration may carry a client secret.
CREATE TABLE mcp_oauth_clients (
  user_id               text NOT NULL,
  server_id             text NOT NULL,
  authorization_server  text NOT NULL,
  redirect_uri          text NOT NULL,
  key_id                text NOT NULL,
  nonce                 bytea NOT NULL,
  ciphertext            bytea NOT NULL,
  auth_tag              bytea NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, server_id, authorization_server, redirect_uri),
  FOREIGN KEY (user_id, server_id) REFERENCES mcp_servers (user_id, id) ON DELETE CASCADE
);
